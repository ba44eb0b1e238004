package io.snode.bench.cli;

import io.snode.api.Layout;
import io.snode.codegen.GeneratedClass;
import io.snode.codegen.SNodeRuntime;
import io.snode.runtime.Plan;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code snode inspect LAYOUT}: the plan and the generated code of a layout. */
@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = {"Prints the plan and the generated code of a layout.",
                "",
                "The plan gives, per SNode, its sizes and bits per axis, cell and container sizes, byte",
                "offsets, and how each level takes its index from the coordinates; then comes the",
                "disassembly of every class generated for the layout.",
                "",
                "Layout grammar: items joined by ';', each a chain of nodes joined by '.' ending in",
                "place(type name, ...) or in a block { item; item }. Nodes: dense(axes,size),",
                "bitmasked(axes,size), pointer(axes,size), dynamic(axis,capacity[,chunk]); a size is one",
                "int or [a,b,c] per axis; axes are letters i..p in order; types i32 i64 f32 f64. A",
                "dynamic node without a chunk takes min(capacity,1024) elements per chunk. One container,",
                "cell or list chunk takes at most 128 MiB.",
                "Example: ./snode inspect 'pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 phi)'"})
final class InspectCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "LAYOUT", description = "the layout in the text form (quote it)")
    String layoutText;

    @Option(names = "--dump", paramLabel = "DIR", description = "also write the .class files to DIR (for javap -c -p)")
    Path dumpDirectory;

    @Option(names = "--plan-only", description = "print the plan without the disassembly")
    boolean planOnly;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        Layout layout;
        try {
            layout = Layout.parse(layoutText);
            Plan.of(layout); // the size rules: a LayoutException before anything is compiled or allocated
        } catch (IllegalArgumentException e) {
            throw new SnodeCli.BadInputException("bad layout: " + e.getMessage().lines().findFirst().orElse("")
                    + " (fix the layout text; the grammar is in ./snode inspect --help)");
        }
        PrintWriter out = spec.commandLine().getOut();
        try (SNodeRuntime runtime = SNodeRuntime.compile(layout)) {
            out.println("layout " + layout);
            out.println();
            out.print(layout.treeString());
            out.println();
            out.println("plan");
            out.print(runtime.plan().describe());
            for (GeneratedClass generated : runtime.generatedCode()) {
                if (!planOnly) {
                    out.println();
                    out.println("generated class " + generated.name() + " (" + generated.bytes().length + " bytes)");
                    out.print(generated.disassembly());
                }
                if (dumpDirectory != null) {
                    Files.createDirectories(dumpDirectory);
                    Path file = dumpDirectory.resolve(generated.fileName());
                    Files.write(file, generated.bytes());
                    out.println("wrote " + file);
                }
            }
        }
        return SnodeCli.OK;
    }
}
