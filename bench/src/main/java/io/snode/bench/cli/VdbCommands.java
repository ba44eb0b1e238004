package io.snode.bench.cli;

import io.snode.api.Layout;
import io.snode.api.PlacedField;
import io.snode.bench.workload.Layouts;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.interop.Bulk;
import io.snode.codegen.interop.Vdb;
import io.snode.codegen.interop.VdbFormatException;
import io.snode.codegen.samples.NarrowBand;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The {@code .vdb} commands: {@code export-vdb} writes the reference shell, {@code import-vdb} reads a grid. */
final class VdbCommands {
    private VdbCommands() {
    }

    /** {@code snode export-vdb}: the W1s shell of WORKLOADS.md (layout L2) as an OpenVDB file. */
    @Command(name = "export-vdb", mixinStandardHelpOptions = true, versionProvider = SnodeCli.Version.class,
            header = "Writes the reference shell of WORKLOADS.md as an OpenVDB file.",
            description = {"Writes the reference shell of WORKLOADS.md (R = 400, 8,048,580 voxels, built in",
                    "layout L2) as an OpenVDB FloatGrid 'phi' of class 'level set', so that",
                    "OpenVDB's own tools can check it, e.g.:",
                    "  vdb_print -l out/shell.vdb",
                    "  /usr/bin/python3 ../shared/peers/openvdb/verify_vdb.py out/shell.vdb",
                    "(verify_vdb.py compares with the full shell's figures: not for --quick)."})
    static final class Export implements Callable<Integer> {
        @Option(names = "--out", paramLabel = "FILE", defaultValue = "out/shell.vdb",
                description = "the file to write (default: ${DEFAULT-VALUE})")
        Path out;

        @Option(names = "--zip", description = "compress leaf buffers with zip (default: uncompressed)")
        boolean zip;

        @Option(names = "--quick", description = "the quick band (R = 100, 503,092 voxels) instead")
        boolean quick;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            PrintWriter out = spec.commandLine().getOut();
            OutputPaths.replacedFile("--out", this.out);
            NarrowBand band = NarrowBand.sorted(quick ? NarrowBand.QUICK_RADIUS : NarrowBand.RADIUS);
            try (SNodeRuntime runtime = SNodeRuntime.compile(Layouts.l2())) {
                long start = System.nanoTime();
                Bulk.writeCells(runtime, "phi", band.cells());
                long built = System.nanoTime();
                Vdb.ExportOptions options = Vdb.ExportOptions.DEFAULTS.gridClass(Vdb.GridClass.LEVEL_SET)
                        .compression(zip ? Vdb.Compression.ZIP : Vdb.Compression.NONE);
                long voxels = Vdb.export(runtime, "phi", this.out, options);
                long written = System.nanoTime();
                out.printf(Locale.ROOT, "wrote %s: FloatGrid 'phi' (level set), %d active voxels, value sum %s,"
                                + " %d bytes%s%n", this.out, voxels, NarrowBand.decimal12(band.valueSum()),
                        Files.size(this.out), zip ? " (zip)" : "");
                out.printf(Locale.ROOT, "build (bulk import) %.3f s, export %.3f s%n", (built - start) / 1e9,
                        (written - built) / 1e9);
            }
            return SnodeCli.OK;
        }
    }

    /** {@code snode import-vdb FILE --layout TEXT}: loads a grid and prints what it holds. */
    @Command(name = "import-vdb", mixinStandardHelpOptions = true, versionProvider = SnodeCli.Version.class,
            header = "Reads a grid of an OpenVDB file into a layout and prints what it holds.",
            description = {"Reads a FloatGrid or DoubleGrid from an OpenVDB file (uncompressed, zip or",
                    "blosc/LZ4 leaf buffers) into a runtime of the given layout and prints the",
                    "active count, the value sum and the bounding box. OpenVDB's signed",
                    "coordinates are moved by an offset into the layout's non-negative ones:",
                    "0 per axis where the grid's box is non-negative, else minus its minimum,",
                    "or --offset x,y,z.",
                    "",
                    "Examples:",
                    "  ./snode import-vdb out/shell.vdb",
                    "  ./snode import-vdb in.vdb --grid density --offset 0,0,64 \\",
                    "      --layout 'pointer(ijk,256).bitmasked(ijk,8).place(f32 phi)'"})
    static final class Import implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "FILE", description = "the .vdb file")
        Path file;

        @Option(names = "--layout", paramLabel = "TEXT", defaultValue = Layouts.L2,
                description = "the layout to load into (default: L2, ${DEFAULT-VALUE})")
        String layoutText;

        @Option(names = "--field", paramLabel = "NAME",
                description = "the f32 or f64 field to load into (default: the layout's first)")
        String field;

        @Option(names = "--grid", paramLabel = "NAME", description = "the grid to read (default: the file's first)")
        String grid;

        @Option(names = "--offset", paramLabel = "X,Y,Z", description = "the offset added to coordinates")
        String offsetText;

        @Option(names = "--no-tiles", description = "refuse grids with active tiles instead of expanding them")
        boolean noTiles;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            PrintWriter out = spec.commandLine().getOut();
            Layout layout;
            try {
                layout = Layout.parse(layoutText);
            } catch (IllegalArgumentException e) {
                throw new SnodeCli.BadInputException("bad layout: " + e.getMessage().lines().findFirst().orElse("")
                        + " (the grammar is in ./snode inspect --help)");
            }
            String name = field != null ? field : layout.fields().stream().map(PlacedField::name).findFirst()
                    .orElseThrow(() -> new SnodeCli.BadInputException("the layout has no field"));
            int[] offset = offsetText == null ? null : offset(offsetText);
            if (Files.isDirectory(file)) {
                throw new SnodeCli.BadInputException(file + " is a directory, not a VDB file");
            }
            Vdb.ImportOptions options = Vdb.ImportOptions.DEFAULTS.gridName(grid).expandTiles(!noTiles);
            if (offset != null) {
                options = options.offset(offset[0], offset[1], offset[2]);
            }
            try (SNodeRuntime runtime = SNodeRuntime.compile(layout)) {
                long start = System.nanoTime();
                Vdb.Imported imported = Vdb.importGrid(file, runtime, name, options);
                long loaded = System.nanoTime();
                if (options.offset() == null && !Arrays.equals(imported.offset(), new int[3])) {
                    out.println("offset " + Arrays.toString(imported.offset())
                            + " added to the grid's coordinates (its box has negative coordinates)");
                }
                out.printf(Locale.ROOT, "%s: grid '%s' (%s) into field %s of %s%n", file, imported.grid(),
                        imported.valueType(), name, layout);
                out.printf(Locale.ROOT, "active %d (of them %d from tiles), sum %s, file box %s%n",
                        runtime.count(name), imported.tileCells(), NarrowBand.decimal12(runtime.sum(name)),
                        imported.fileBoxLow() == null ? "empty"
                                : Arrays.toString(imported.fileBoxLow()) + " to " + Arrays.toString(imported.fileBoxHigh()));
                out.printf(Locale.ROOT, "read and loaded in %.3f s%n", (loaded - start) / 1e9);
            } catch (NoSuchFileException e) {
                throw new SnodeCli.BadInputException("no such file: " + file);
            } catch (VdbFormatException e) {
                String message = e.getMessage();
                if (noTiles && message.endsWith(TILES_REFUSED)) {
                    message = message.substring(0, message.length() - TILES_REFUSED.length())
                            + "--no-tiles refuses them (drop --no-tiles to import the tiles as active cells)";
                } else if (grid == null) {
                    message += otherGrids();
                }
                throw new SnodeCli.BadInputException(message);
            } catch (IllegalArgumentException e) {
                throw new SnodeCli.BadInputException(e.getMessage());
            }
            return SnodeCli.OK;
        }

        /** What Vdb.importGrid's refusal of active tiles ends with. */
        private static final String TILES_REFUSED = "ImportOptions.expandTiles is false";

        /** Where the file's first grid (the default) could not be read: the other grids to choose with --grid. */
        private String otherGrids() {
            try {
                List<String> names = Vdb.gridNames(file);
                return names.size() < 2 ? ""
                        : " (the file's grids: " + String.join(", ", names) + "; choose one with --grid NAME)";
            } catch (IOException | RuntimeException e) {
                return ""; // the file itself cannot be listed: the message above says why
            }
        }

        private static int[] offset(String text) {
            String[] parts = text.split(",", -1);
            int[] offset = new int[parts.length];
            try {
                for (int c = 0; c < parts.length; c++) {
                    offset[c] = Integer.parseInt(parts[c].strip());
                }
            } catch (NumberFormatException e) {
                parts = new String[0];
            }
            if (parts.length != 3) {
                throw new SnodeCli.BadInputException("--offset=" + text + " takes 3 integers x,y,z, e.g. --offset 0,0,-64");
            }
            return offset;
        }
    }
}
