package io.snode.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoCommandTest {
    private static final Pattern CHECKSUM = Pattern.compile("checksum ([0-9a-f]{16})");

    record Result(int code, String out, String err) {
        String checksum() {
            Matcher matcher = CHECKSUM.matcher(out);
            assertThat(matcher.find()).as("a checksum line in:%n%s", out).isTrue();
            return matcher.group(1);
        }
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = SnodeCli.run(args, new PrintWriter(out), new PrintWriter(err));
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    @org.junit.jupiter.api.Tag("scalar-fallback")
    void aTinyRunPrintsOneLinePerStepAndWritesBothPictures(@TempDir Path directory) throws Exception {
        Path out = directory.resolve("pictures");
        Result result = run("demo", "--steps", "6", "--particles", "600", "--threads", "1", "--out", out.toString());
        assertThat(result.code()).as(result.err()).isZero();
        assertThat(result.err()).isEmpty();
        assertThat(result.out())
                .contains("snode demo: sparse particle-in-cell in 256^3 cells", "6 steps", "600 particles", "seed 42")
                .contains("layout hash(ijk,4).pointer(ijk,8){ dense(ijk,8)", "bitmasked(ijk,8)", "dynamic(l,")
                .contains("compiled the layout", "ran 6 steps in", "time by phase:", "in use: first step")
                .contains("wrote " + out.resolve("demo.png"), "wrote " + out.resolve("memory.png"))
                .doesNotContain("\r", "\033");
        for (int step = 1; step <= 6; step++) {
            assertThat(result.out()).containsPattern("(?m)^ +" + step + " +\\d+ +\\d+ +\\d+ +\\d+ +\\d+ +[0-9.]+ MiB");
        }
        BufferedImage picture = ImageIO.read(out.resolve("demo.png").toFile());
        BufferedImage chart = ImageIO.read(out.resolve("memory.png").toFile());
        assertThat(picture).isNotNull();
        assertThat(picture.getWidth()).isGreaterThanOrEqualTo(3 * 256);
        assertThat(chart).isNotNull();
        assertThat(chart.getWidth()).isGreaterThan(chart.getHeight());
    }

    @Test
    void theSameSeedGivesTheSameChecksumSequentialOrParallel(@TempDir Path directory) {
        String[] common = {"demo", "--steps", "8", "--particles", "2000", "--seed", "7", "--out", directory.toString()};
        Result sequential = run(concat(common, "--threads", "1"));
        Result parallel = run(concat(common, "--threads", "3"));
        assertThat(sequential.code()).as(sequential.err()).isZero();
        assertThat(parallel.code()).as(parallel.err()).isZero();
        assertThat(parallel.checksum()).isEqualTo(sequential.checksum());
        assertThat(parallel.out()).contains("seed 7", "3 threads");
    }

    /**
     * The checksum covers every step, not only the final state: once every particle has left the
     * domain the final state is the same for every seed, and so was the checksum (until 12-06).
     * Also the labels: what the memory column shows is reserved (a cap's count), not "held from
     * the system", and a step under a millisecond is not printed as 0 ms.
     */
    @Test
    void runsThatEndEmptyStillDifferByTheirSeedsChecksum(@TempDir Path directory) {
        String[] common = {"demo", "--steps", "1500", "--particles", "1", "--threads", "1", "--no-progress", "--out",
                directory.toString()};
        Result first = run(concat(common, "--seed", "42"));
        Result second = run(concat(common, "--seed", "7"));
        assertThat(first.code()).as(first.err()).isZero();
        assertThat(second.code()).as(second.err()).isZero();
        assertThat(first.out()).contains(" 1500          0").as("the particle has left");
        assertThat(second.checksum()).isNotEqualTo(first.checksum());
        assertThat(first.out()).contains("reserved (what a memory cap counts) at most", "  reserved  ")
                .doesNotContain("held").doesNotContainPattern("\\(0 ms a step");
    }

    @Test
    void aFailureForWantOfHeapSaysToGiveTheHeapMore() {
        RuntimeException wrapped = new RuntimeException("kernel failed", new OutOfMemoryError("Java heap space"));
        assertThat(SnodeCli.heapExhausted(wrapped)).isTrue();
        assertThat(SnodeCli.heapExhausted(new RuntimeException(new OutOfMemoryError("Metaspace")))).isFalse();
        assertThat(SnodeCli.heapExhausted(new IllegalStateException("x"))).isFalse();
    }

    @Test
    void badNumbersExitWithTwoAndSayWhatIsAllowed(@TempDir Path directory) {
        String out = directory.toString();
        assertBadInput(run("demo", "--steps", "0", "--out", out), "--steps=0 must be between 1 and 100000");
        assertBadInput(run("demo", "--steps", "-3", "--out", out), "--steps=-3 must be between 1 and 100000");
        assertBadInput(run("demo", "--particles", "0", "--out", out), "--particles=0 must be between 1 and 4000000");
        assertBadInput(run("demo", "--particles", "4000001", "--out", out), "--particles=4000001 must be between");
        assertBadInput(run("demo", "--threads", "0", "--out", out), "--threads=0 must be between 1 and 1024");
    }

    @Test
    void unparsableArgumentsExitWithTwoAndPointToHelp() {
        Result notANumber = run("demo", "--steps", "many");
        assertThat(notANumber.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(notANumber.err()).contains("--steps", "many", "./snode demo --help");
        Result unknown = run("demo", "--frames", "3");
        assertThat(unknown.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(unknown.err()).contains("--frames");
        Result missingValue = run("demo", "--seed");
        assertThat(missingValue.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(missingValue.out()).isEmpty();
    }

    @Test
    void anOutputPathThatIsAFileExitsWithTwo(@TempDir Path directory) throws Exception {
        Path file = Files.writeString(directory.resolve("taken"), "not a directory");
        assertBadInput(run("demo", "--out", file.toString()), "is a file, not a directory");
        assertBadInput(run("demo", "--out", file.resolve("below").toString()), "cannot be created");
    }

    @Test
    void aDirectoryWhereAPictureGoesExitsWithTwoBeforeTheRun(@TempDir Path directory) throws Exception {
        Files.createDirectories(directory.resolve("demo.png"));
        assertBadInput(run("demo", "--steps", "1", "--particles", "10", "--out", directory.toString()),
                "demo.png is a directory where the demo writes a picture");
        assertThat(directory.resolve("demo.png")).isDirectory();
        assertThat(directory.resolve("memory.png")).doesNotExist();
    }

    @Test
    void anEmptyOrBlankOutputPathExitsWithTwoInsteadOfWritingIntoTheCurrentFolder() {
        assertBadInput(run("demo", "--steps", "1", "--particles", "10", "--out", ""),
                "--out='' is empty; name a directory");
        assertBadInput(run("demo", "--steps", "1", "--particles", "10", "--out", "  "),
                "--out='  ' is empty; name a directory");
        assertThat(Path.of("demo.png")).doesNotExist();
    }

    @Test
    void helpDescribesTheOptionsAndExitsWithZero() {
        Result help = run("demo", "--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("--steps", "--particles", "--seed", "--threads", "--out", "--no-progress",
                "demo.png", "memory.png");
        String options = help.out().replaceAll("\\R +", " ");
        assertThat(options).as("the ranges the command enforces").contains(
                "steps to run, 1 to " + io.snode.bench.demo.ParticleInCell.MAX_STEPS,
                "particles the source emits in all, 1 to " + io.snode.bench.demo.ParticleInCell.MAX_PARTICLES,
                "threads for the launches, 1 to 1024");
    }

    private static void assertBadInput(Result result, String message) {
        assertThat(result.code()).as(result.out() + result.err()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(result.out()).isEmpty();
        assertThat(result.err().strip()).startsWith("snode demo: ").contains(message).doesNotContain("\n");
    }

    private static String[] concat(String[] first, String... more) {
        String[] all = java.util.Arrays.copyOf(first, first.length + more.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }
}
