package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import java.lang.management.ClassLoadingMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import org.junit.jupiter.api.Test;

/** Generated classes belong to their runtime: closed and dropped, they unload. */
class ClassUnloadingTest {

    @Test
    void compilingAndClosingThousandsOfRuntimesKeepsMetaspaceFlat() {
        Layout layout = Layout.parse("pointer(ij,8).dense(ij,4){ place(f32 a, i32 b) }; dynamic(k,64,8).place(i64 c)");
        ClassLoadingMXBean classes = ManagementFactory.getClassLoadingMXBean();
        cycle(layout, 200); // warm-up
        settle(classes, 0);
        long unloadedBefore = classes.getUnloadedClassCount();
        long metaspaceBefore = metaspaceUsed();

        cycle(layout, 5_000);
        settle(classes, unloadedBefore + 4_500);

        long unloaded = classes.getUnloadedClassCount() - unloadedBefore;
        long metaspaceGrowth = metaspaceUsed() - metaspaceBefore;
        System.out.printf("5,000 runtimes compiled and closed: %d classes unloaded, metaspace %+d bytes%n",
                unloaded, metaspaceGrowth);
        assertThat(unloaded).as("classes unloaded").isGreaterThanOrEqualTo(4_500);
        // 5,000 leaked layout classes would hold about 12 MB of metaspace.
        assertThat(metaspaceGrowth).as("metaspace growth").isLessThan(4L << 20);
    }

    private static void cycle(Layout layout, int runtimes) {
        for (int n = 0; n < runtimes; n++) {
            try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
                rt.generic().setFloat("a", 1f, 3, 4);
            }
        }
    }

    /** Collects until {@code target} classes have been unloaded, at most 20 times. */
    private static void settle(ClassLoadingMXBean classes, long target) {
        for (int attempt = 0; attempt < 20 && classes.getUnloadedClassCount() < target; attempt++) {
            System.gc();
        }
        System.gc();
    }

    private static long metaspaceUsed() {
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getName().equals("Metaspace")) {
                return pool.getUsage().getUsed();
            }
        }
        throw new IllegalStateException("no Metaspace memory pool");
    }
}
