package io.snode.codegen.internal.vdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * OpenVDB's tools on this machine, for OpenVdbInteropTest: Debian's {@code vdb_print}, the Python
 * binding, g++ with OpenVDB's headers and libraries, the shared peer harness's
 * {@code verify_vdb.py}; each probed once, with a sentence saying why it is missing.
 */
final class OpenVdbTools {
    static final Path VDB_PRINT = Path.of("/usr/bin/vdb_print");
    static final Path PYTHON = Path.of("/usr/bin/python3");
    static final Path OPENVDB_HEADER = Path.of("/usr/include/openvdb/openvdb.h");
    static final Path BOOST_HEADER = Path.of("/usr/include/boost/numeric/conversion/conversion_traits.hpp");
    static final Path TBB_HEADER = Path.of("/usr/include/tbb/tbb.h");
    /** The module directory (surefire's basedir). */
    static final Path MODULE = Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath();
    static final Path WORK = MODULE.resolve("target/openvdb-interop");

    private static String pythonMissing;
    private static boolean pythonProbed;

    private OpenVdbTools() {
    }

    record Result(int exit, String output) {
    }

    static Result run(long timeoutSeconds, List<String> command) throws IOException, InterruptedException {
        Files.createDirectories(WORK);
        Path log = Files.createTempFile(WORK, "run", ".log");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(command + " ran past " + timeoutSeconds + " s");
            }
            return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** Why vdb_print cannot be used, or null. */
    static String vdbPrintMissing() {
        return Files.isExecutable(VDB_PRINT) ? null
                : VDB_PRINT + " is missing (Debian package libopenvdb-tools): OpenVDB cannot check our files";
    }

    /** Why the Python binding cannot be used, or null. */
    static synchronized String pythonMissing() throws IOException, InterruptedException {
        if (!pythonProbed) {
            pythonProbed = true;
            if (!Files.isExecutable(PYTHON)) {
                pythonMissing = PYTHON + " is missing";
            } else {
                Result r = run(60, List.of(PYTHON.toString(), "-c", "import pyopenvdb"));
                pythonMissing = r.exit() == 0 ? null
                        : "the OpenVDB Python binding (pyopenvdb, Debian package python3-openvdb) is missing: "
                                + r.output().strip();
            }
        }
        return pythonMissing;
    }

    /** verify_vdb.py of the shared peer harness: the first ancestor of the module holding shared/peers/openvdb. */
    static Path verifyScript() {
        for (Path p = MODULE; p != null; p = p.getParent()) {
            Path s = p.resolve("shared/peers/openvdb/verify_vdb.py");
            if (Files.isRegularFile(s)) {
                return s;
            }
        }
        return null;
    }

    /** Why write_shell.cpp cannot be built, or null. */
    static String compilerMissing() throws IOException, InterruptedException {
        if (!Files.isRegularFile(OPENVDB_HEADER)) {
            return OPENVDB_HEADER + " is missing (Debian package libopenvdb-dev): cannot build write_shell.cpp";
        }
        // OpenVDB's headers include Boost's and TBB's, which Debian's libopenvdb-dev does not pull in.
        for (Path header : List.of(BOOST_HEADER, TBB_HEADER)) {
            if (!Files.isRegularFile(header)) {
                return header + " is missing (Debian packages libboost-dev and libtbb-dev): OpenVDB's headers need it"
                        + " to build write_shell.cpp";
            }
        }
        try {
            Result r = run(60, List.of("g++", "--version"));
            return r.exit() == 0 ? null : "g++ does not run: " + r.output().strip();
        } catch (IOException e) {
            return "g++ is missing: cannot build write_shell.cpp (" + e.getMessage() + ")";
        }
    }

    /**
     * Builds write_shell.cpp into target/ (again only when the source is newer) and runs it into
     * {@link #WORK} (again only when the binary is newer than its files); returns the directory.
     */
    static synchronized Path openVdbFiles() throws IOException, InterruptedException {
        Path source = MODULE.resolve("src/test/openvdb/write_shell.cpp");
        Path binary = WORK.resolve("write_shell");
        Path files = WORK.resolve("openvdb-files");
        Files.createDirectories(files);
        if (!Files.exists(binary)
                || Files.getLastModifiedTime(binary).compareTo(Files.getLastModifiedTime(source)) < 0) {
            Path tmp = WORK.resolve("write_shell.tmp");
            List<String> cmd = new ArrayList<>(List.of("g++", "-std=c++17", "-O1", "-DNDEBUG", "-pthread",
                    source.toString(), "-o", tmp.toString(), "-lopenvdb", "-ltbb", "-lImath-3_1"));
            Result r = run(600, cmd);
            assertThat(r.exit()).as("g++ write_shell.cpp:\n%s", r.output()).isZero();
            Files.move(tmp, binary, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        Path stamp = files.resolve("expect.txt");
        if (!Files.exists(stamp)
                || Files.getLastModifiedTime(stamp).compareTo(Files.getLastModifiedTime(binary)) < 0) {
            Files.deleteIfExists(stamp);
            Result r = run(300, List.of(binary.toString(), files.toString()));
            assertThat(r.exit()).as("write_shell:\n%s", r.output()).isZero();
        }
        return files;
    }
}
