package io.snode.bench.cli;

import io.snode.api.Layout;
import io.snode.api.MemoryCapExceededException;
import io.snode.codegen.GeneratedClass;
import io.snode.codegen.SNodeRuntime;
import io.snode.runtime.Collector;
import io.snode.runtime.Plan;
import io.snode.runtime.RuntimeOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code snode inspect LAYOUT}: the plan and the generated code of a layout. The plan alone
 * ({@code --plan-only}) is computed from the layout: nothing is compiled and nothing allocated.
 * Compiling allocates the layout's root container, so a root over the memory cap is bad input.
 */
@Command(name = "inspect", mixinStandardHelpOptions = true, versionProvider = SnodeCli.Version.class,
        description = {"Prints the plan and the generated code of a layout.",
                "",
                "The plan gives, per SNode, its sizes and bits per axis, cell and container",
                "sizes, byte offsets, and how each level takes its index from the",
                "coordinates; then comes the disassembly of every class generated for the",
                "layout, each starting with its constants (name, value, what it is: the",
                "root container, node managers, their regions and zero cells come from",
                "the compiled runtime, not from the plan alone). Compiling allocates the",
                "layout's root container, which must fit the default memory cap (the",
                "plan's last line gives both; a root within the size rules below fits it",
                "on any machine of 256 MiB or more); --plan-only compiles and allocates",
                "nothing.",
                "In the disassembly, LINENUMBER n marks where level n of a path starts",
                "(1: the root's children), and LOCALVARIABLE lines name each method's",
                "locals (segment, offset, word, index, ...) by slot.",
                "",
                "Layout grammar: items joined by ';', each a chain of nodes joined by '.'",
                "ending in place(type name, ...) or in a block { item; item }. Nodes:",
                "dense(axes,size), bitmasked(axes,size), pointer(axes,size),",
                "hash(axes,size), dynamic(axis,capacity[,chunk]); a size is one int or",
                "[a,b,c] per axis; axes are letters i..p in order; types i32 i64 f32",
                "f64. A dynamic node without a chunk takes min(capacity,1024) elements",
                "per chunk. One container, pointer or hash cell, or list chunk takes at",
                "most 128 MiB.",
                "",
                "Example:",
                "  ./snode inspect 'pointer(ijk,16).dense(ijk,8).place(f32 phi)'"})
final class InspectCommand implements Callable<Integer> {
    /**
     * The serial collector: inspect never collects, and the parallel one would load the Vector
     * API (or warn that it is missing), which {@code ./snode inspect} runs without.
     */
    private static final RuntimeOptions OPTIONS = RuntimeOptions.DEFAULT.withCollector(Collector.SERIAL);

    @Parameters(index = "0", paramLabel = "LAYOUT", description = "the layout in the text form (quote it)")
    String layoutText;

    @Option(names = "--dump", paramLabel = "DIR",
            description = "also write the .class files to DIR (for javap -c -p); compiles the layout."
                    + " DIR comes first: --dump DIR LAYOUT")
    Path dumpDirectory;

    @Option(names = "--plan-only", description = "print only the plan; compiles and allocates nothing")
    boolean planOnly;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /**
     * After "Missing required parameter: 'LAYOUT'": where --dump took the layout as its
     * directory, what to write instead; else nothing.
     */
    String missingLayoutHint() {
        return dumpDirectory == null ? "" : "; --dump takes a directory before the layout, e.g. ./snode inspect"
                + " --dump out/classes 'LAYOUT' (here it took '" + dumpDirectory + "' as the directory)";
    }

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
        if (dumpDirectory != null) {
            OutputPaths.directory("--dump", dumpDirectory);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (planOnly && dumpDirectory == null) {
            printPlan(out, Plan.of(layout));
            return SnodeCli.OK;
        }
        SNodeRuntime compiled;
        try {
            compiled = SNodeRuntime.compile(layout, OPTIONS);
        } catch (MemoryCapExceededException e) {
            throw new SnodeCli.BadInputException("the layout needs " + e.bytesRequested() + " B ("
                    + human(e.bytesRequested()) + ") for " + e.ownerName()
                    + (e.bytesHeld() > 0 ? " beside " + e.bytesHeld() + " B already held" : "")
                    + ", over the memory cap of " + e.capBytes() + " B (" + human(e.capBytes())
                    + "); make it smaller, or print its plan without allocating it with --plan-only");
        }
        try (SNodeRuntime runtime = compiled) {
            printPlan(out, runtime.plan());
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

    private static void printPlan(PrintWriter out, Plan plan) {
        Layout layout = plan.layout();
        out.println("layout " + layout);
        out.println();
        out.print(layout.treeString());
        out.println();
        out.println("plan");
        out.print(plan.describe());
        long root = plan.node(layout.root()).containerBytes();
        long cap = OPTIONS.memoryCapBytes();
        out.println();
        out.println("memory: root container " + bytes(root) + ", allocated when the layout is"
                + " compiled; " + (root <= cap ? "within" : "over") + " the memory cap of " + bytes(cap)
                + (root <= cap ? "" : ": compiling this layout fails"));
    }

    /** {@code bytes} exactly, with {@link #human} beside it where that says it shorter (not "728 B (728 B)"). */
    static String bytes(long bytes) {
        String human = human(bytes);
        return human.equals(bytes + " B") ? human : bytes + " B (" + human + ")";
    }

    /** {@code bytes} in the largest binary unit that keeps it at 1 or more, e.g. "2.0 GiB". */
    static String human(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return unit == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}
