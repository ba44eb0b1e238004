package io.snode.codegen.internal.vdb;

import static io.snode.codegen.internal.vdb.VdbTestGrids.SHELL_SUM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.snode.codegen.interop.VdbFormatException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Our files read by OpenVDB ({@code vdb_print}, the Python binding with the shared harness's
 * {@code verify_vdb.py}) and OpenVDB's files (written by write_shell.cpp with {@code io::File})
 * read by us. Each test is skipped, saying why, where its OpenVDB tool is missing.
 */
class OpenVdbInteropTest {
    private static Path ourShellZip;
    private static Path ourShellRaw;

    private static synchronized void writeOurShell() throws IOException {
        if (ourShellZip == null) {
            Files.createDirectories(OpenVdbTools.WORK);
            VdbGrid shell = VdbTestGrids.shellGrid();
            Path zip = OpenVdbTools.WORK.resolve("our_shell_zip.vdb");
            Path raw = OpenVdbTools.WORK.resolve("our_shell_raw.vdb");
            long t0 = System.nanoTime();
            VdbWriter.write(zip, List.of(shell), VdbCompression.ZIP);
            long t1 = System.nanoTime();
            VdbWriter.write(raw, List.of(shell), VdbCompression.NONE);
            long t2 = System.nanoTime();
            System.out.printf("vdb write: shell ZIP %d bytes in %.3f s (%.1f MB/s), NONE %d bytes in %.3f s (%.1f MB/s)%n",
                    Files.size(zip), (t1 - t0) / 1e9, Files.size(zip) / 1e3 / ((t1 - t0) / 1e6), Files.size(raw),
                    (t2 - t1) / 1e9, Files.size(raw) / 1e3 / ((t2 - t1) / 1e6));
            ourShellZip = zip;
            ourShellRaw = raw;
        }
    }

    @Test
    void vdbPrintReadsOurShellInEveryCompression() throws Exception {
        String missing = OpenVdbTools.vdbPrintMissing();
        assumeThat(missing).as(missing).isNull();
        writeOurShell();
        for (Path f : List.of(ourShellZip, ourShellRaw)) {
            OpenVdbTools.Result r = OpenVdbTools.run(120, List.of(OpenVdbTools.VDB_PRINT.toString(), "-l", f.toString()));
            assertThat(r.output()).as("vdb_print -l %s", f).doesNotContain("ERROR")
                    .contains("Tree_float_5_4_3")
                    .containsPattern("Number of active voxels: +8,048,580")
                    .containsPattern("Bounding box of active voxels: \\[623, 623, 623\\] -> \\[1425, 1425, 1425\\]")
                    .contains("class: level set")
                    .contains("file_compression: " + (f == ourShellZip ? "zip + active values" : "none"))
                    .contains("file_voxel_count: 8048580");
        }
    }

    @Test
    void thePythonBindingVerifiesOurShell() throws Exception {
        String missing = OpenVdbTools.pythonMissing();
        assumeThat(missing).as(missing).isNull();
        Path script = OpenVdbTools.verifyScript();
        assumeThat(script).as("shared/peers/openvdb/verify_vdb.py not found above " + OpenVdbTools.MODULE
                + ": the peer harness is not checked out").isNotNull();
        writeOurShell();
        OpenVdbTools.Result r = OpenVdbTools.run(300, List.of(OpenVdbTools.PYTHON.toString(), script.toString(),
                ourShellZip.toString()));
        assertThat(r.exit()).as("verify_vdb.py %s:\n%s", ourShellZip, r.output()).isZero();
        assertThat(r.output()).contains("RESULT: MATCHES");
    }

    private static Path openVdbFiles() throws Exception {
        String missing = OpenVdbTools.compilerMissing();
        assumeThat(missing).as(missing).isNull();
        return OpenVdbTools.openVdbFiles();
    }

    @Test
    void weReadOpenVdbsShellInEveryCompression() throws Exception {
        Path dir = openVdbFiles();
        for (String name : List.of("shell.vdb", "shell_zip.vdb", "shell_raw.vdb")) {
            Path f = dir.resolve(name);
            assertThat(VdbReader.gridNames(f)).containsExactly("phi");
            long t0 = System.nanoTime();
            VdbGrid g = VdbReader.read(f, "phi");
            double s = (System.nanoTime() - t0) / 1e9;
            System.out.printf("vdb read: OpenVDB's %s, %d bytes in %.3f s (%.1f MB/s)%n", name, Files.size(f), s,
                    Files.size(f) / 1e6 / s);
            assertThat(g.name()).isEqualTo("phi");
            assertThat(g.voxelSize()).isEqualTo(1.0);
            assertThat(g.translation()).containsExactly(0, 0, 0);
            assertThat(g.tiles()).isEmpty();
            assertThat(VdbTestGrids.assertShell(g)).as(name).isEqualTo(SHELL_SUM);
            // verify_vdb.py's probes
            Map<Long, Integer> index = VdbTestGrids.leafIndex(g.leaves());
            assertThat(VdbTestGrids.probe(g, index, 1424, 1024, 1024)).containsExactly(0.0, true);
            assertThat(VdbTestGrids.probe(g, index, 1425, 1024, 1024)).containsExactly(1.0, true);
            assertThat(VdbTestGrids.probe(g, index, 1426, 1024, 1024)).containsExactly(0.0, false);
            assertThat(VdbTestGrids.probe(g, index, 1024, 1024, 1024)).containsExactly(0.0, false);
            Object[] first = VdbTestGrids.probe(g, index, 623, 996, 1020);
            assertThat((double) first[0]).isCloseTo(1.99626863, org.assertj.core.data.Offset.offset(1e-6));
            assertThat(first[1]).isEqualTo(true);
        }
    }

    /** What write_shell printed for one grid of mixed.vdb. */
    private record Expected(double background, List<VdbTile> tiles, Map<List<Integer>, double[]> leaves, long count,
            int[] bbox) {
    }

    private static Map<String, Expected> expected(Path file) throws IOException {
        Map<String, Expected> map = new HashMap<>();
        String grid = null;
        double bg = 0;
        List<VdbTile> tiles = new ArrayList<>();
        Map<List<Integer>, double[]> leaves = new HashMap<>();
        long count = 0;
        for (String line : Files.readAllLines(file)) {
            String[] w = line.split(" ");
            switch (w[0]) {
                case "grid" -> {
                    grid = w[1];
                    bg = Double.parseDouble(w[2]);
                    tiles = new ArrayList<>();
                    leaves = new HashMap<>();
                }
                case "tile" -> tiles.add(new VdbTile(Integer.parseInt(w[1]), Integer.parseInt(w[2]),
                        Integer.parseInt(w[3]), Integer.parseInt(w[4]), Double.parseDouble(w[5]), w[6].equals("1")));
                case "leaf" -> leaves.put(List.of(Integer.parseInt(w[1]), Integer.parseInt(w[2]), Integer.parseInt(w[3])),
                        new double[] {Double.parseDouble(w[4]), Double.parseDouble(w[5]), Double.parseDouble(w[6])});
                case "count" -> count = Long.parseLong(w[1]);
                case "bbox" -> {
                    int[] b = new int[6];
                    for (int i = 0; i < 6; i++) {
                        b[i] = Integer.parseInt(w[1 + i]);
                    }
                    map.put(grid, new Expected(bg, tiles, leaves, count, b));
                }
                default -> throw new AssertionError("expect.txt: " + line);
            }
        }
        return map;
    }

    private static void assertAsExpected(VdbGrid g, Expected e) {
        assertThat(g.background()).isEqualTo(e.background());
        assertThat(g.tiles()).containsExactlyInAnyOrderElementsOf(e.tiles());
        VdbLeaves l = g.leaves();
        assertThat(l.size()).isEqualTo(e.leaves().size());
        for (int leaf = 0; leaf < l.size(); leaf++) {
            double[] want = e.leaves().get(List.of(l.x(leaf), l.y(leaf), l.z(leaf)));
            assertThat(want).as("leaf (%d,%d,%d)", l.x(leaf), l.y(leaf), l.z(leaf)).isNotNull();
            double all = 0;
            double on = 0;
            for (int off = 0; off < 512; off++) {
                all += l.value(leaf, off);
                on += l.active(leaf, off) ? l.value(leaf, off) : 0;
            }
            assertThat(new double[] {l.activeCount(leaf), all, on}).as("leaf (%d,%d,%d): active, sum of all, sum of active",
                    l.x(leaf), l.y(leaf), l.z(leaf)).containsExactly(want);
        }
        assertThat(g.activeVoxelCount()).isEqualTo(e.count());
        assertThat(g.activeBoundingBox()).containsExactly(e.bbox());
    }

    @Test
    void weReadOpenVdbsTilesMaskModesAndDoubleGridsAndSkipTheOthers() throws Exception {
        Path dir = openVdbFiles();
        Map<String, Expected> expected = expected(dir.resolve("expect.txt"));
        for (String name : List.of("mixed.vdb", "mixed_zip.vdb", "mixed_raw.vdb")) {
            Path f = dir.resolve(name);
            assertThat(VdbReader.gridNames(f)).containsExactly("vec", "tiles", "dbl", "inst");
            VdbGrid tiles = VdbReader.read(f, "tiles");
            assertThat(tiles.type()).isEqualTo(VdbValueType.FLOAT);
            assertThat(tiles.tiles()).extracting(VdbTile::edge).contains(8, 128, 4096);
            assertAsExpected(tiles, expected.get("tiles"));
            VdbGrid dbl = VdbReader.read(f, "dbl");
            assertThat(dbl.type()).isEqualTo(VdbValueType.DOUBLE);
            assertThat(dbl.voxelSize()).isEqualTo(0.25);
            assertThat(dbl.translation()).containsExactly(1, 2, 3);
            assertAsExpected(dbl, expected.get("dbl"));
            assertThatThrownBy(() -> VdbReader.read(f, "vec")).isInstanceOf(VdbFormatException.class)
                    .hasMessageContainingAll(f.toString(), "grid 'vec'", "Tree_vec3s_5_4_3", "not supported");
            assertThatThrownBy(() -> VdbReader.read(f, "inst")).isInstanceOf(VdbFormatException.class)
                    .hasMessageContainingAll(f.toString(), "grid 'inst'", "instanced");
        }
        Path half = dir.resolve("half.vdb");
        assertThatThrownBy(() -> VdbReader.read(half, null)).isInstanceOf(VdbFormatException.class)
                .hasMessageContainingAll(half.toString(), "grid 'h'", "half-float storage is not supported");
    }
}
