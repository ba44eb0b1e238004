package io.snode.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.codegen.samples.NarrowBand;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code snode export-vdb} and {@code import-vdb}: the quick band goes out and back with the
 * WORKLOADS.md checksums (no OpenVDB needed); where OpenVDB's tools are installed, they read the
 * exported reference shell, and its checksums come back through our import.
 */
class VdbCommandsTest {
    private static final String QUICK_SUM = "9699.728345140815";

    @Test
    void theQuickBandGoesOutAndComesBackWithItsChecksums(@TempDir Path dir) {
        Path file = dir.resolve("sub/quick.vdb");
        SnodeCliTest.Result export = SnodeCliTest.run("export-vdb", "--quick", "--zip", "--out", file.toString());
        assertThat(export.code()).as(export.err()).isZero();
        assertThat(export.out()).contains("503092 active voxels", "(zip)");
        SnodeCliTest.Result back = SnodeCliTest.run("import-vdb", file.toString());
        assertThat(back.code()).as(back.err()).isZero();
        assertThat(back.out()).contains("grid 'phi' (FLOAT)", "active 503092 (of them 0 from tiles), sum " + QUICK_SUM,
                "file box [923, 923, 923] to [1125, 1125, 1125]");
        assertThat(back.out()).doesNotContain("offset");
    }

    @Test
    void aGridOutsideTheLayoutAndAFileThatIsNoVdbAreBadInput(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("quick.vdb");
        assertThat(SnodeCliTest.run("export-vdb", "--quick", "--out", file.toString()).code()).isZero();
        SnodeCliTest.Result small = SnodeCliTest.run("import-vdb", file.toString(), "--layout",
                "pointer(ijk,16).bitmasked(ijk,8).place(f32 phi)");
        assertThat(small.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(small.err()).contains("[923, 923, 923] to [1125, 1125, 1125]", "do not fit", "nothing was written");
        Path junk = Files.writeString(dir.resolve("junk.vdb"), "not a vdb file at all");
        SnodeCliTest.Result bad = SnodeCliTest.run("import-vdb", junk.toString());
        assertThat(bad.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(bad.err()).contains("junk.vdb");
        SnodeCliTest.Result missing = SnodeCliTest.run("import-vdb", dir.resolve("none.vdb").toString());
        assertThat(missing.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(missing.err()).contains("no such file");
    }

    @Test
    void aDirectoryWhereAFileBelongsIsBadInput(@TempDir Path dir) {
        SnodeCliTest.Result importing = SnodeCliTest.run("import-vdb", dir.toString());
        assertThat(importing.code()).as(importing.err()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(importing.err()).contains(dir + " is a directory, not a VDB file").doesNotContain("a bug");
        SnodeCliTest.Result exporting = SnodeCliTest.run("export-vdb", "--quick", "--out", dir.toString());
        assertThat(exporting.code()).as(exporting.err()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(exporting.err()).contains("--out=" + dir + " is a directory; name a file").doesNotContain("a bug");
    }

    /**
     * An --out that cannot be written (under a file, in a file system that takes no files, empty)
     * is bad input before the shell is built, not a failure after it; a failed export leaves no
     * file behind.
     */
    @Test
    void anOutThatCannotBeWrittenIsBadInputBeforeAnything(@TempDir Path dir) throws java.io.IOException {
        Path file = Files.writeString(dir.resolve("afile"), "x");
        java.util.List<String> outs = new java.util.ArrayList<>(java.util.List.of(file.resolve("x.vdb").toString(), ""));
        if (Files.isDirectory(Path.of("/proc/self"))) {
            outs.add("/proc/x.vdb");
        }
        for (String out : outs) {
            SnodeCliTest.Result exporting = SnodeCliTest.run("export-vdb", "--quick", "--out", out);
            assertThat(exporting.code()).as(out + ": " + exporting.err()).isEqualTo(SnodeCli.BAD_INPUT);
            assertThat(exporting.err()).contains("--out=").doesNotContain("a bug").doesNotContain("is a directory");
            assertThat(exporting.out()).as("nothing was built").isEmpty();
        }
        try (var listed = Files.list(dir)) {
            assertThat(listed).containsExactly(file);
        }
    }

    /** An --out that is a symbolic link writes the file it names; the link stays a link. */
    @Test
    void anOutThatIsASymbolicLinkWritesTheFileItNames(@TempDir Path dir) throws IOException {
        Path real = Files.createDirectory(dir.resolve("real"));
        Files.writeString(real.resolve("shell.vdb"), "old");
        Path link = Files.createSymbolicLink(dir.resolve("link.vdb"), Path.of("real", "shell.vdb"));
        SnodeCliTest.Result export = SnodeCliTest.run("export-vdb", "--quick", "--out", link.toString());
        assertThat(export.code()).as(export.err()).isZero();
        assertThat(Files.isSymbolicLink(link)).isTrue();
        SnodeCliTest.Result back = SnodeCliTest.run("import-vdb", real.resolve("shell.vdb").toString());
        assertThat(back.code()).as(back.err()).isZero();
        assertThat(back.out()).contains("active 503092 (of them 0 from tiles), sum " + QUICK_SUM);
        try (var listed = Files.list(real)) {
            assertThat(listed).containsExactly(real.resolve("shell.vdb"));
        }
    }

    /**
     * A link to a file in a directory that does not exist yet: the directory is made, as for a
     * path given directly (it failed with exit 1 and NoSuchFileException).
     */
    @Test
    void aLinkIntoAMissingDirectoryIsTreatedAsThePathItNames(@TempDir Path dir) throws IOException {
        Path link = Files.createSymbolicLink(dir.resolve("dangling.vdb"), Path.of("sub", "new.vdb"));
        SnodeCliTest.Result export = SnodeCliTest.run("export-vdb", "--quick", "--out", link.toString());
        assertThat(export.code()).as(export.err()).isZero();
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(dir.resolve("sub/new.vdb")).isRegularFile();
    }

    /** An --out that exists and is not a regular file (a FIFO) is refused before the shell is built, and stays. */
    @Test
    void anOutThatIsNotARegularFileIsRefusedBeforeAnything(@TempDir Path dir) throws Exception {
        Path fifo = dir.resolve("fifo");
        Assumptions.assumeTrue(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0, "no mkfifo");
        SnodeCliTest.Result export = SnodeCliTest.run("export-vdb", "--quick", "--out", fifo.toString());
        assertThat(export.code()).as(export.err()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(export.err().strip()).doesNotContain("\n").contains("--out=" + fifo, "not a regular file");
        assertThat(export.out()).as("nothing was built").isEmpty();
        assertThat(Files.readAttributes(fifo, java.nio.file.attribute.BasicFileAttributes.class).isOther()).isTrue();
        try (var listed = Files.list(dir)) {
            assertThat(listed).containsExactly(fifo);
        }
    }

    /** import-vdb reads regular files only: a pipe (a shell's {@code <(...)}) or a device is refused as such. */
    @Test
    void anInputThatIsNotARegularFileIsRefusedAsSuch(@TempDir Path dir) throws Exception {
        java.util.List<Path> inputs = new java.util.ArrayList<>();
        if (Files.exists(Path.of("/dev/null"))) {
            inputs.add(Path.of("/dev/null"));
        }
        Path fifo = dir.resolve("fifo");
        if (new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0) {
            inputs.add(fifo);
        }
        Assumptions.assumeFalse(inputs.isEmpty(), "neither /dev/null nor mkfifo");
        for (Path input : inputs) {
            SnodeCliTest.Result result = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                    java.time.Duration.ofSeconds(30), () -> SnodeCliTest.run("import-vdb", input.toString()));
            assertThat(result.code()).as(result.err()).isEqualTo(SnodeCli.BAD_INPUT);
            assertThat(result.err().strip()).doesNotContain("\n").contains(input.toString(), "not a regular file")
                    .doesNotContain("0 bytes");
        }
    }

    /** import-vdb's refusals say which option to change: --no-tiles, --offset, and --grid when the first grid cannot be read. */
    @Test
    void importVdbsRefusalsNameTheOptionToChange(@TempDir Path dir) throws IOException {
        io.snode.codegen.internal.vdb.VdbLeaves leaves =
                new io.snode.codegen.internal.vdb.VdbLeaves(io.snode.codegen.internal.vdb.VdbValueType.FLOAT);
        leaves.set(leaves.add(0, 0, 0), 5, 1.5, true);
        io.snode.codegen.internal.vdb.VdbGrid first = new io.snode.codegen.internal.vdb.VdbGrid("first",
                io.snode.codegen.internal.vdb.VdbValueType.FLOAT, "fog volume", 1, new double[3], 0.0, leaves,
                java.util.List.of());
        io.snode.codegen.internal.vdb.VdbGrid tiled = new io.snode.codegen.internal.vdb.VdbGrid("tiled",
                io.snode.codegen.internal.vdb.VdbValueType.FLOAT, "fog volume", 1, new double[3], 0.0, leaves,
                java.util.List.of(new io.snode.codegen.internal.vdb.VdbTile(128, 0, 0, 8, 2, true)));
        Path file = dir.resolve("two.vdb");
        io.snode.codegen.internal.vdb.VdbWriter.write(file, java.util.List.of(first, tiled),
                io.snode.codegen.internal.vdb.VdbCompression.NONE);

        SnodeCliTest.Result noTiles = SnodeCliTest.run("import-vdb", file.toString(), "--grid", "tiled", "--no-tiles");
        assertThat(noTiles.code()).as(noTiles.err()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(noTiles.err()).contains("1 active tiles (512 voxels)", "drop --no-tiles").doesNotContain("ImportOptions");
        SnodeCliTest.Result offset = SnodeCliTest.run("import-vdb", file.toString(), "--offset", "1,2");
        assertThat(offset.code()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(offset.err()).contains("--offset=1,2 takes 3 integers x,y,z");
        assertThat(SnodeCliTest.run("import-vdb", "--help").out()).contains("--offset=X,Y,Z").doesNotContain("X,Y,Z...");

        // The first grid becomes a vector grid (its tree type patched), which the codec does not read.
        byte[] bytes = Files.readAllBytes(file);
        String floatTree = "Tree_float_5_4_3";
        int at = new String(bytes, StandardCharsets.ISO_8859_1).indexOf(floatTree);
        System.arraycopy("Tree_vec3s_5_4_3".getBytes(StandardCharsets.US_ASCII), 0, bytes, at, floatTree.length());
        Path mixed = Files.write(dir.resolve("mixed.vdb"), bytes);
        SnodeCliTest.Result unsupported = SnodeCliTest.run("import-vdb", mixed.toString());
        assertThat(unsupported.code()).as(unsupported.err()).isEqualTo(SnodeCli.BAD_INPUT);
        assertThat(unsupported.err()).contains("grid 'first'", "not supported", "the file's grids: first, tiled",
                "--grid");
        SnodeCliTest.Result chosen = SnodeCliTest.run("import-vdb", mixed.toString(), "--grid", "tiled");
        assertThat(chosen.code()).as(chosen.err()).isZero();
        assertThat(chosen.out()).contains("active 513 (of them 512 from tiles)");
    }

    /** The done-when of the interop issue: OpenVDB's own tools read the exported reference shell. */
    @Test
    void openVdbsToolsReadTheExportedShell(@TempDir Path dir) throws Exception {
        Path vdbPrint = Path.of("/usr/bin/vdb_print");
        Assumptions.assumeTrue(Files.isExecutable(vdbPrint), "OpenVDB's vdb_print is not installed (Debian: libopenvdb-tools)");
        Path file = dir.resolve("shell.vdb");
        SnodeCliTest.Result export = SnodeCliTest.run("export-vdb", "--out", file.toString());
        assertThat(export.code()).as(export.err()).isZero();
        assertThat(export.out()).contains("8048580 active voxels", "value sum " + NarrowBand.decimal12(33845.922322932631));
        String printed = command(vdbPrint.toString(), "-l", file.toString());
        assertThat(printed).doesNotContain("ERROR").contains("8048580");
        SnodeCliTest.Result back = SnodeCliTest.run("import-vdb", file.toString());
        assertThat(back.out()).contains("active 8048580 (of them 0 from tiles), sum 33845.922322932631",
                "file box [623, 623, 623] to [1425, 1425, 1425]");
        Path verify = null;
        for (Path up = Path.of("").toAbsolutePath(); up != null && verify == null; up = up.getParent()) {
            if (Files.isRegularFile(up.resolve("shared/peers/openvdb/verify_vdb.py"))) {
                verify = up.resolve("shared/peers/openvdb/verify_vdb.py");
            }
        }
        Assumptions.assumeTrue(verify != null, "no shared/peers/openvdb/verify_vdb.py above the checkout");
        Process python = new ProcessBuilder("/usr/bin/python3", verify.toString(), file.toString()).redirectErrorStream(true).start();
        String report = new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(python.waitFor(120, TimeUnit.SECONDS)).isTrue();
        Assumptions.assumeFalse(report.contains("No module named"), "the OpenVDB Python binding is not installed: " + report);
        assertThat(python.exitValue()).as(report).isZero();
        assertThat(report).contains("MATCHES the WORKLOADS.md shell");
    }

    private static String command(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return output;
    }
}
