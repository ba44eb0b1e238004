package io.snode.codegen.oom;

import io.snode.api.Layout;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.kernel.Kernel3;
import java.util.ArrayList;
import java.util.List;

/**
 * Run in a JVM of its own with a small heap ({@link OutOfMemoryInALaunchTest}): the first launch
 * of the JVM runs a kernel that fills the heap and lets the {@link OutOfMemoryError} out while
 * it still holds the heap, so that everything the launch does on its way out (exiting the phase
 * lock included) runs with no heap to allocate from. Then a collection must still run: exit
 * code 0, or 2 when {@code gc()} waited for a launch that had ended, 3 when the launch returned.
 */
public final class FirstLaunchOutOfMemory {
    static final List<Object> HOG = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse("pointer(ijk,16).dense(ijk,8).place(f32 phi)"))) {
            for (int b = 0; b < 100; b++) {
                rt.generic().setFloat("phi", 1f, (b % 16) * 8, (b / 16) * 8, 0);
            }
            rt.parallelism(1);
            try {
                rt.forEach("phi", (Kernel3) (i, j, k) -> {
                    if (i == 32 && j == 40 && k == 0) {
                        for (;;) {
                            HOG.add(new long[4096]);
                        }
                    }
                });
                System.exit(3);
            } catch (Throwable expected) {
                HOG.clear();
            }
            Thread collection = new Thread(rt::gc);
            collection.setDaemon(true);
            collection.start();
            collection.join(10_000);
            if (collection.isAlive()) {
                System.out.println("gc() did not return: " + rt.phaseLock());
                System.exit(2);
            }
            System.out.println("launches active after the launch: " + rt.phaseLock().activeLaunches());
        }
    }
}
