package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.codegen.kernel.BlockKernel;
import io.snode.codegen.kernel.Kernel3;
import io.snode.codegen.kernel.LeafBlock;
import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A kernel class loaded by a class loader of its own (a plugin reloaded while the program and its
 * runtime run on): once the program drops it, its loader is collected although the runtime is
 * still open. Until 12-07 each runtime kept its drivers in a map keyed by the kernel's class, so
 * every reloaded plugin's loader stayed until {@code close()} (300 of 300 after 300 reloads).
 */
public class KernelClassUnloadingTest {
    public static final AtomicLong CALLS = new AtomicLong();

    /** The plugin: loaded again, from this class's bytes, by each {@link PluginLoader}. */
    public static final class PluginKernel implements Kernel3, BlockKernel {
        @Override
        public void apply(int i, int j, int k) {
            CALLS.incrementAndGet();
        }

        @Override
        public void apply(LeafBlock block) {
            CALLS.addAndGet(block.cellCount());
        }
    }

    /** Defines {@link PluginKernel} itself; everything else (the kernel interfaces, this test) comes from the parent. */
    private static final class PluginLoader extends ClassLoader {
        PluginLoader() {
            super("plugin", KernelClassUnloadingTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.equals(PluginKernel.class.getName())) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded != null) {
                    return loaded;
                }
                String resource = name.replace('.', '/') + ".class";
                try (InputStream in = getParent().getResourceAsStream(resource)) {
                    byte[] bytes = in.readAllBytes();
                    return defineClass(name, bytes, 0, bytes.length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
        }
    }

    @Test
    void aReloadedKernelsLoaderIsCollectedWhileTheRuntimeStaysOpen() throws Exception {
        CALLS.set(0);
        Layout layout = Layout.parse("pointer(ijk,4).dense(ijk,4).place(f32 phi)");
        try (SNodeRuntime runtime = SNodeRuntime.compile(layout)) {
            runtime.generic().setFloat("phi", 1f, 1, 2, 3);
            List<WeakReference<ClassLoader>> loaders = new ArrayList<>();
            for (int reload = 0; reload < 20; reload++) {
                loaders.add(launchAPlugin(runtime));
            }
            assertThat(CALLS.get()).isEqualTo(20 * (64 + 64)); // one dense block of 64 cells: 64 kernel calls, one block of 64
            assertThat(stillReachableAfterCollections(loaders))
                    .as("plugin loaders still reachable while the runtime is open").isZero();
            // The runtime still launches, with a kernel of its own loader's as with a new plugin.
            runtime.forEach("phi", (Kernel3) (i, j, k) -> CALLS.incrementAndGet());
            assertThat(launchAPlugin(runtime)).isNotNull();
            assertThat(CALLS.get()).isEqualTo(21 * (64 + 64) + 64);
        }
    }

    /**
     * The other way round: a kernel class that outlives many runtimes (the application's own)
     * does not keep closed runtimes' layouts and drivers (its {@code ClassValue} entries are
     * emptied by the runtime's close; without that, about a third of 200 closed runtimes' layouts
     * stayed reachable after collections).
     */
    @Test
    void aLongLivedKernelClassKeepsNoClosedRuntimesLayout() {
        CALLS.set(0);
        PluginKernel kernel = new PluginKernel();
        List<WeakReference<Object>> layouts = new ArrayList<>();
        for (int n = 0; n < 100; n++) {
            Layout layout = Layout.parse("pointer(ijk,4).dense(ijk,4).place(f32 phi)");
            try (SNodeRuntime runtime = SNodeRuntime.compile(layout)) {
                runtime.generic().setFloat("phi", 1f, 1, 2, 3);
                runtime.forEach("phi", (Kernel3) kernel);
                runtime.forEachBlock(layout.field("phi").snode(), (BlockKernel) kernel);
            }
            layouts.add(new WeakReference<>(layout.field("phi").snode()));
        }
        assertThat(CALLS.get()).isEqualTo(100 * (64 + 64));
        assertThat(stillReachableAfterCollections(layouts)).as("closed runtimes' layouts still reachable").isZero();
    }

    /** Collects (up to 100 times, with garbage between) until none of {@code references} is reachable; how many still are. */
    private static long stillReachableAfterCollections(List<? extends WeakReference<?>> references) {
        for (int n = 0; n < 100 && references.stream().anyMatch(w -> w.get() != null); n++) {
            System.gc();
            byte[][] garbage = new byte[64][];
            for (int g = 0; g < garbage.length; g++) {
                garbage[g] = new byte[1 << 16];
            }
        }
        return references.stream().filter(w -> w.get() != null).count();
    }

    /** Loads the plugin in a loader of its own and launches it as a cell kernel and as a block kernel. */
    private static WeakReference<ClassLoader> launchAPlugin(SNodeRuntime runtime) throws Exception {
        PluginLoader loader = new PluginLoader();
        Object plugin = loader.loadClass(PluginKernel.class.getName()).getDeclaredConstructor().newInstance();
        assertThat(plugin.getClass()).isNotSameAs(PluginKernel.class);
        runtime.forEach("phi", (Kernel3) plugin);
        runtime.forEachBlock(runtime.layout().field("phi").snode(), (BlockKernel) plugin);
        return new WeakReference<>(loader);
    }
}
