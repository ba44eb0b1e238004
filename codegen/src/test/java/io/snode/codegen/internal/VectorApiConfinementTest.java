package io.snode.codegen.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.codegen.SNodeRuntime;
import io.snode.gc.ParallelCollector;
import io.snode.runtime.internal.vectorization.VectorizationProvider;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No class of the library that is loaded without {@code jdk.incubator.vector} names it: in the
 * class files of api, sparse-runtime, gc and codegen, only the three Panama kernel classes refer to
 * the incubator package, and only they and the Panama provider (which the provider loads by name,
 * after its module check) refer to a Panama class. A reference anywhere else would be resolved,
 * and throw {@code NoClassDefFoundError}, in a JVM without the module.
 */
class VectorApiConfinementTest {

    private static final String VECTOR_PACKAGE = "jdk/incubator/vector/";
    private static final String PANAMA = "io/snode/runtime/internal/vectorization/Panama";

    @Test
    void onlyThePanamaClassesNameTheVectorApi() throws Exception {
        Map<String, String> classes = new TreeMap<>();
        for (Class<?> anchor : new Class<?>[] {Layout.class, VectorizationProvider.class, ParallelCollector.class,
                SNodeRuntime.class}) {
            readClasses(Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI()), classes);
        }
        assertThat(classes).containsKeys("io/snode/api/Layout", "io/snode/codegen/internal/PointerScan",
                "io/snode/codegen/internal/MaskCopy", "io/snode/gc/ParallelCollector");
        assertThat(classes.entrySet().stream().filter(e -> e.getValue().contains(VECTOR_PACKAGE)).map(Map.Entry::getKey))
                .containsExactlyInAnyOrder(PANAMA + "GcKernels", PANAMA + "ScanKernels", PANAMA + "ReductionKernels");
        assertThat(classes.entrySet().stream().filter(e -> e.getValue().contains(PANAMA)).map(Map.Entry::getKey))
                .containsExactlyInAnyOrder(PANAMA + "GcKernels", PANAMA + "ScanKernels", PANAMA + "ReductionKernels",
                        PANAMA + "VectorizationProvider");
    }

    /** Class name to the class file's bytes as Latin-1 text (constant pool names appear verbatim). */
    private static void readClasses(Path location, Map<String, String> into) throws IOException {
        if (Files.isDirectory(location)) {
            try (Stream<Path> files = Files.walk(location)) {
                for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                    String name = location.relativize(file).toString().replace('\\', '/');
                    into.put(name.substring(0, name.length() - ".class".length()),
                            new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
                }
            }
            return;
        }
        try (JarFile jar = new JarFile(location.toFile())) {
            for (JarEntry entry : jar.stream().filter(e -> e.getName().endsWith(".class")).toList()) {
                try (InputStream in = jar.getInputStream(entry)) {
                    String name = entry.getName();
                    into.put(name.substring(0, name.length() - ".class".length()),
                            new String(in.readAllBytes(), StandardCharsets.ISO_8859_1));
                }
            }
        }
    }
}
