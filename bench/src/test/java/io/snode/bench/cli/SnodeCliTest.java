package io.snode.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.runtime.RuntimeOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnodeCliTest {
    static final String L1 = "pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 phi)";
    static final String L2 = "pointer(ijk,16).pointer(ijk,16).bitmasked(ijk,8).place(f32 phi)";
    /** The largest root the size rules allow: one 128 MiB container. */
    static final String HUGE = "dense(ijk,[512,256,256]).place(f32 x)";
    static final long HUGE_BYTES = 128L << 20;

    record Result(int code, String out, String err) {
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = SnodeCli.run(args, new PrintWriter(out), new PrintWriter(err));
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void inspectPrintsThePlanAndTheGeneratedCodeOfL1() {
        Result result = run("inspect", L1);
        assertThat(result.code()).isZero();
        assertThat(result.err()).isEmpty();
        assertThat(result.out()).contains(
                "snode 1 root/pointer(ijk,16)", "cells 4096, cell 32768 B", "axis i: size 16 (4 bits), stride 256",
                "snode 3 root/pointer(ijk,16)/pointer(ijk,16)/dense(ijk,8)", "cell 4 B",
                "i: (c >>> 7) & 15, stride 256", "i: (c >>> 3) & 15, stride 256", "i: (c >>> 0) & 7, stride 64",
                "public static get_phi(III)F", "BIPUSH 7", "IUSHR", "BIPUSH 15", "IAND");
        assertThat(result.out()).as("the constants come first, each explained")
                .contains("// constants (static final fields), each with what it is and where its value comes from:",
                        "//   ROOT: the root container, 32768 B",
                        "//   REGION_2: the region of address space holding the cells of CELLS_2: ")
                .containsPattern("//   ZERO_CELL_1 = (\\d+): the offset in REGION_1 of its zero cell, \\d+ cells \\* 32768 B");
    }

    @Test
    void inspectOfL2ShowsTheBitmaskBeforeTheCells() {
        Result result = run("inspect", "--plan-only", L2);
        assertThat(result.code()).isZero();
        assertThat(result.out()).contains("kind bitmasked, cells 512, cell 4 B (align 4), container 2112 B (mask 64 B, cells at +64)")
                .doesNotContain("INVOKESTATIC");
    }

    @Test
    void dumpWritesClassFiles(@TempDir Path directory) throws Exception {
        Result result = run("inspect", "--plan-only", "--dump", directory.toString(), L1);
        assertThat(result.code()).isZero();
        try (var files = Files.list(directory)) {
            Path file = files.findFirst().orElseThrow();
            byte[] bytes = Files.readAllBytes(file);
            assertThat(file.getFileName().toString()).startsWith("Layout").endsWith(".class");
            assertThat(bytes).startsWith(0xCA, 0xFE, 0xBA, 0xBE);
        }
    }

    @Test
    void aBadLayoutIsOneLineOnStderrAndExitCodeTwo() {
        Result result = run("inspect", "dense(ijk,8)");
        assertThat(result.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(result.out()).isEmpty();
        assertThat(result.err().strip()).doesNotContain("\n")
                .startsWith("snode inspect: bad layout: column 13: expected '.' or '{'")
                .contains("fix the layout text");
        Result invalid = run("inspect", "pointer(ij,4).dynamic(j,8).place(f32 x)");
        assertThat(invalid.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(invalid.err()).contains("not consumed by any of its ancestors");
    }

    @Test
    void aLayoutThatBreaksASizeRuleIsBadInput() {
        Result tooLarge = run("inspect", "pointer(ijk,16).dense(ijk,512).place(f32 x)");
        assertThat(tooLarge.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(tooLarge.out()).isEmpty();
        assertThat(tooLarge.err().strip()).doesNotContain("\n")
                .contains("bad layout: root/pointer(ijk,16)/dense(ijk,512): one container", "128 MiB",
                        "container=536870912 bytes");
        Result overflow = run("inspect", "dense(ijklmnop,[256,256,256,256,256,256,256,64]).place(f32 x)");
        assertThat(overflow.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(overflow.err()).contains("fits a signed 64-bit integer");
    }

    @Test
    void badArgumentsExitWithTwo() {
        Result missing = run("inspect");
        assertThat(missing.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(missing.err()).contains("Missing required parameter").contains("--help");
        Result unknown = run("frobnicate");
        assertThat(unknown.code()).isEqualTo(SnodeCli.BAD_INPUT);
        Result option = run("inspect", "--nope", L1);
        assertThat(option.code()).isEqualTo(SnodeCli.BAD_INPUT);
    }

    @Test
    void planOnlyPrintsThePlanOfTheLargestRootWithoutCompilingIt() {
        Result result = run("inspect", "--plan-only", HUGE);
        assertThat(result.code()).as(result.err()).isZero();
        assertThat(result.err()).isEmpty();
        assertThat(result.out()).contains("plan", "cells 33554432, cell 4 B", "axis i: size 512 (9 bits)")
                .contains("root container " + HUGE_BYTES + " B", "within the memory cap of "
                        + RuntimeOptions.DEFAULT.memoryCapBytes() + " B")
                .doesNotContain("generated class");
    }

    @Test
    void planOnlyOfAnOrdinaryLayoutSaysItsRootFitsTheCap() {
        Result result = run("inspect", "--plan-only", L1);
        assertThat(result.code()).isZero();
        assertThat(result.out()).contains("root container 32768 B (32.0 KiB)", "within the memory cap")
                .doesNotContain("over the memory cap", "generated class");
        // A root under 1 KiB printed "728 B (728 B)" until 12-07.
        Result small = run("inspect", "--plan-only", "bitmasked(ij,[3,6]).bitmasked(i,8).place(f32 x)");
        assertThat(small.code()).isZero();
        assertThat(small.out()).contains("root container 728 B, allocated").doesNotContain("(728 B)");
    }

    /**
     * Since one container is at most 128 MiB (a layout rule), a root over the default memory cap
     * (half the physical memory) cannot be declared; a layout past the rule is bad input for
     * {@code --plan-only} too, before anything is planned.
     */
    @Test
    void aRootPastTheSizeRulesIsBadInputForThePlanToo() {
        Result result = run("inspect", "--plan-only", "dense(ijk,65536).place(f64 x)");
        assertThat(result.code()).as(result.err()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(result.out()).isEmpty();
        assertThat(result.err().strip()).doesNotContain("\n").doesNotContain("bug").contains("bad layout", "128 MiB");
    }

    /** The top level's list of commands gives each a whole sentence, not the first line of a longer text. */
    @Test
    void theCommandListGivesEachCommandAWholeSentence() {
        Result result = run("--help");
        assertThat(result.code()).isZero();
        String commands = result.out().substring(result.out().indexOf("Commands:"));
        for (String name : new String[] {"inspect", "demo", "bench", "soak", "export-vdb", "import-vdb"}) {
            // The summary, with the lines picocli wraps it onto (indented further).
            Matcher line = Pattern.compile("(?m)^  " + Pattern.quote(name) + " +(.*(?:\\R {10,}.*)*)$").matcher(commands);
            assertThat(line.find()).as(name).isTrue();
            assertThat(line.group(1).strip()).as(name).endsWith(".");
        }
    }

    /** Every command's --version (which its help offers) prints the version, as the top level's does. */
    @Test
    void everyCommandsVersionOptionPrintsTheVersion() {
        for (String command : new String[] {"inspect", "demo", "bench", "soak", "export-vdb", "import-vdb"}) {
            Result result = run(command, "--version");
            assertThat(result.code()).as(command).isZero();
            assertThat(result.out()).as(command).startsWith("snode ");
        }
    }

    /** A --dump that cannot be written is bad input before anything is printed. */
    @Test
    void aDumpDirectoryThatCannotBeWrittenIsBadInputBeforeTheCode(@TempDir Path directory) throws java.io.IOException {
        Path file = Files.writeString(directory.resolve("afile"), "x");
        for (String dump : new String[] {file.toString(), file.resolve("sub").toString(), ""}) {
            Result result = run("inspect", "--dump", dump, L1);
            assertThat(result.code()).as(dump + ": " + result.err()).isEqualTo(SnodeCli.BAD_INPUT);
            assertThat(result.err()).contains("--dump=").doesNotContain("a bug");
            assertThat(result.out()).isEmpty();
        }
    }

    /** Every {@code ./snode inspect} command the README shows works (exit 0, nothing on stderr). */
    @Test
    void theReadmesInspectCommandsWork(@TempDir Path directory) throws java.io.IOException {
        Path readme = Path.of(System.getProperty("user.dir")).getParent().resolve("README.md");
        Matcher command = Pattern.compile("(?m)^\\./snode inspect (--plan-only |--dump \\S+ )?'([^']+)'$")
                .matcher(Files.readString(readme));
        int seen = 0;
        while (command.find()) {
            String option = command.group(1) == null ? "" : command.group(1).strip();
            Result result = option.startsWith("--dump")
                    ? run("inspect", "--dump", directory.toString(), command.group(2))
                    : option.isEmpty() ? run("inspect", command.group(2)) : run("inspect", option, command.group(2));
            assertThat(result.code()).as("%s: %s", command.group(), result.err()).isZero();
            assertThat(result.err()).isEmpty();
            seen++;
        }
        assertThat(seen).as("inspect commands in the README").isGreaterThanOrEqualTo(3);
    }

    @Test
    void theHintAfterAnUnknownCommandNamesTheHelpWithOneSpace() {
        Result result = run("bogus");
        assertThat(result.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(result.err().strip()).isEqualTo("snode: unknown command 'bogus'; the commands are inspect, demo,"
                + " bench, soak, export-vdb, import-vdb, help (see: ./snode --help)");
        Result sub = run("inspect", "--nope", L1);
        assertThat(sub.err()).contains("(see: ./snode inspect --help)").doesNotContain("  ");
    }

    @Test
    void inspectHelpFitsEightyColumnsAndItsExampleIsOneLineThatParses() {
        Result help = run("inspect", "--help");
        assertThat(help.code()).isZero();
        assertThat(help.out().lines()).allSatisfy(line -> assertThat(line.length()).as(line).isLessThanOrEqualTo(80));
        Matcher example = Pattern.compile("(?m)^ *\\./snode inspect '([^'\\n]+)'$").matcher(help.out());
        assertThat(example.find()).as("a one-line example in:%n%s", help.out()).isTrue();
        assertThat(Layout.parse(example.group(1)).snodes()).hasSizeGreaterThan(1);
    }

    @Test
    void helpListsTheSubcommands() {
        Result result = run("--help");
        assertThat(result.code()).isZero();
        assertThat(result.out()).contains("inspect", "Usage: snode");
    }

    /** --dump takes a directory: given the layout in its place, the message says so. */
    @Test
    void aLayoutGivenAsTheDumpDirectoryIsExplained() {
        Result result = run("inspect", "--dump", "dense(ijk,8).place(f32 x)");
        assertThat(result.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(result.out()).isEmpty();
        assertThat(result.err().strip()).doesNotContain("\n")
                .contains("--dump takes a directory before the layout", "'dense(ijk,8).place(f32 x)'");
        Result missing = run("inspect", "--plan-only");
        assertThat(missing.err()).contains("Missing required parameter").doesNotContain("--dump takes");
    }

    /** The README's list of commands names every command the top level has. */
    @Test
    void theReadmesListOfCommandsNamesEveryCommand() throws java.io.IOException {
        String readme = Files.readString(Path.of(System.getProperty("user.dir")).getParent().resolve("README.md"));
        int start = readme.indexOf("`./snode --help` lists the commands:");
        assertThat(start).isNotNegative();
        String list = readme.substring(start, readme.indexOf("A command exits", start));
        for (String command : new picocli.CommandLine(new SnodeCli()).getSubcommands().keySet()) {
            assertThat(list).as(command).contains("`" + command + "`");
        }
    }
}
