package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.runtime.RuntimeOptions;
import io.snode.runtime.SparseRuntime;
import io.snode.runtime.internal.UnclosedRuntimes;
import io.snode.runtime.internal.memory.MemoryAllocator;
import io.snode.runtime.testing.LogCapture;
import java.io.File;
import java.lang.ref.WeakReference;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/**
 * The library loaded by a class loader of its own (a plugin's, an application server's
 * redeployable one), with the application's interface in a parent loader that outlives it: once
 * its runtimes are closed and the threads that used them have ended, nothing of the library's
 * stays reachable from the interface, so its loader is collected. (The implementation's lookup
 * was kept with the interface class, in a {@code ClassValue}, which pinned the library's loader
 * for as long as the interface lived.)
 */
class LibraryUnloadingTest {
    /** An application interface in the test's loader, the parent of the library's copy. */
    public interface Cells {
        float x(int i);

        void x(int i, float value);
    }

    /** Loads the library's classes (our modules' main classes and jars) itself, everything else from its parent. */
    private static final class ChildFirst extends URLClassLoader {
        /** What the deployment keeps (in a static field of its own, say): reachable only through this loader. */
        volatile Object kept;

        ChildFirst(URL[] urls, ClassLoader parent) {
            super("snode-copy", urls, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("io.snode.")) {
                synchronized (getClassLoadingLock(name)) {
                    Class<?> loaded = findLoadedClass(name);
                    if (loaded != null) {
                        return loaded;
                    }
                    try {
                        return findClass(name);
                    } catch (ClassNotFoundException notInTheCopy) {
                        // the test's own classes (the interface) come from the parent
                    }
                }
            }
            return super.loadClass(name, resolve);
        }
    }

    private static URL[] libraryClassPath() throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            File file = new File(entry);
            boolean mainClasses = file.isDirectory() && file.getName().equals("classes");
            boolean moduleJar = file.isFile() && file.getName().startsWith("snode-");
            if (mainClasses || moduleJar) {
                urls.add(file.toURI().toURL());
            }
        }
        return urls.toArray(URL[]::new);
    }

    @Test
    void aCopyOfTheLibraryInItsOwnLoaderIsCollectedOnceItsRuntimesAreClosed() throws Exception {
        WeakReference<ClassLoader> copy = useACopy(true);
        collectUntilCleared(copy);
        assertThat(copy.get()).as("the library's loader after its runtime was closed").isNull();
    }

    /**
     * A deployment dropped with a runtime it never closed, kept only through its own loader: the
     * loader is collected all the same (the runtime's off-heap memory stays held). On the code of
     * 12-06 that first reported unclosed runtimes, the reporter's thread held the runtime's watch,
     * whose class kept this loader, and so the runtime, reachable forever, and it was never reported.
     */
    @Test
    void aCopyDroppedWithAnUnclosedRuntimeIsCollectedAllTheSame() throws Exception {
        WeakReference<ClassLoader> copy = useACopy(false);
        collectUntilCleared(copy);
        assertThat(copy.get()).as("the library's loader, dropped with a runtime never closed").isNull();
    }

    /**
     * The library in the application's loader, and a plugin in a loader of its own that creates a
     * runtime, keeps it and is dropped without closing it: the plugin's loader is collected (the
     * report of the runtime does not keep the classes of the stack that created it), and the
     * runtime is reported once the library is used again.
     */
    @Test
    void aPluginDroppedWithAnUnclosedRuntimeIsCollectedAndItsRuntimeReported() throws Exception {
        pluginDroppedWithAnUnclosedRuntime(false);
    }

    /**
     * As {@link #aPluginDroppedWithAnUnclosedRuntimeIsCollectedAndItsRuntimeReported}, the
     * runtime's memory allocator being the plugin's own: the watch of unclosed runtimes held the
     * runtime's pool, and so the allocator, whose class kept the plugin's loader and the runtime
     * reachable from the library's static set (second review of 12-06).
     */
    @Test
    void aPluginWithItsOwnAllocatorDroppedWithAnUnclosedRuntimeIsCollectedAndItsRuntimeReported() throws Exception {
        pluginDroppedWithAnUnclosedRuntime(true);
    }

    private void pluginDroppedWithAnUnclosedRuntime(boolean ownAllocator) throws Exception {
        String label = "plugin" + System.nanoTime();
        WeakReference<ClassLoader> plugin = createFromAPlugin(label, ownAllocator);
        try (LogCapture log = new LogCapture(UnclosedRuntimes.LOGGER)
                .afterEachCollection(() -> SNodeRuntime.compile(Layout.parse("dense(i,4).place(f32 x)")).close())) {
            collectUntilCleared(plugin);
            assertThat(plugin.get()).as("the plugin's loader, dropped with a runtime never closed").isNull();
            LogRecord record = log.collectUntilLogged(label);
            assertThat(Arrays.stream(record.getThrown().getStackTrace()).map(StackTraceElement::getClassName))
                    .as("where the runtime was created, as text").contains(PluginCreator.class.getName());
            assertThat(log.recordsContaining(label)).hasSize(1);
        }
    }

    /**
     * Creates a runtime labelled {@code label} (with the plugin's own allocator when
     * {@code ownAllocator}) from {@link PluginCreator}, defined by a loader of its own that keeps it.
     */
    private static WeakReference<ClassLoader> createFromAPlugin(String label, boolean ownAllocator) throws Exception {
        PluginLoader loader = new PluginLoader();
        @SuppressWarnings("unchecked")
        BiFunction<String, Boolean, Object> creator = (BiFunction<String, Boolean, Object>) loader
                .loadClass(PluginCreator.class.getName()).getDeclaredConstructor().newInstance();
        assertThat(creator.getClass()).isNotSameAs(PluginCreator.class);
        loader.kept = creator.apply(label, ownAllocator);
        return new WeakReference<>(loader);
    }

    /** A plugin's class (its loader, {@link PluginLoader}, defines its own copy) that creates a runtime and does not close it. */
    public static final class PluginCreator implements BiFunction<String, Boolean, Object> {
        @Override
        public Object apply(String label, Boolean ownAllocator) {
            RuntimeOptions options = ownAllocator ? RuntimeOptions.DEFAULT.withAllocator(new PluginAllocator())
                    : RuntimeOptions.DEFAULT;
            SparseRuntime runtime = SparseRuntime.create(Layout.parse("pointer(i,16).dense(i,8).place(f32 x)"),
                    options, label);
            runtime.setFloat("x", 1f, 3);
            return runtime;
        }
    }

    /** A plugin's own allocator (defined by {@link PluginLoader} too): the library's default, delegated to. */
    public static final class PluginAllocator extends io.snode.runtime.internal.memory.ForwardingAllocator {
        public PluginAllocator() {
            super(MemoryAllocator.regionsWherePossible());
        }
    }

    /** Defines {@link PluginCreator} and {@link PluginAllocator} itself; everything else (the library, this test) comes from the parent. */
    private static final class PluginLoader extends ClassLoader {
        volatile Object kept;

        PluginLoader() {
            super("plugin", LibraryUnloadingTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.equals(PluginCreator.class.getName()) && !name.equals(PluginAllocator.class.getName())) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null) {
                    try (var in = LibraryUnloadingTest.class.getResourceAsStream("/" + name.replace('.', '/') + ".class")) {
                        byte[] bytes = in.readAllBytes();
                        loaded = defineClass(name, bytes, 0, bytes.length);
                    } catch (java.io.IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
                return loaded;
            }
        }
    }

    /** Collects (up to 100 times, with garbage between) until {@code reference} is cleared. */
    private static void collectUntilCleared(WeakReference<?> reference) {
        for (int n = 0; n < 100 && reference.get() != null; n++) {
            System.gc();
            byte[][] garbage = new byte[64][];
            for (int g = 0; g < garbage.length; g++) {
                garbage[g] = new byte[1 << 16];
            }
        }
    }

    /**
     * Compiles, binds {@link Cells}, writes, reads and (when {@code close}) closes in a copy of
     * the library, on a thread that ends; an unclosed runtime is kept by the copy's loader only.
     */
    private static WeakReference<ClassLoader> useACopy(boolean close) throws Exception {
        ChildFirst loader = new ChildFirst(libraryClassPath(), LibraryUnloadingTest.class.getClassLoader());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<Float> read = new AtomicReference<>();
        Thread user = new Thread(() -> {
            try {
                Class<?> layoutClass = loader.loadClass("io.snode.api.Layout");
                Object layout = layoutClass.getMethod("parse", String.class).invoke(null,
                        "pointer(i,16).dense(i,8).place(f32 x)");
                Class<?> runtimeClass = loader.loadClass("io.snode.codegen.SNodeRuntime");
                assertThat(runtimeClass.getClassLoader()).isSameAs(loader);
                AutoCloseable runtime = (AutoCloseable) runtimeClass.getMethod("compile", layoutClass).invoke(null, layout);
                Cells cells = (Cells) runtimeClass.getMethod("bind", Class.class).invoke(runtime, Cells.class);
                cells.x(9, 2.5f);
                read.set(cells.x(9));
                Cells accessor = (Cells) runtimeClass.getMethod("accessor", Class.class).invoke(runtime, Cells.class);
                accessor.x(17, 1f);
                if (close) {
                    runtime.close();
                } else {
                    loader.kept = runtime;
                }
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "library user");
        // As an application server does for a deployment's threads: threads the library starts
        // from it (the collector's, the watch of unclosed runtimes') must not keep this loader.
        user.setContextClassLoader(loader);
        user.start();
        user.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(user.isAlive()).isFalse();
        assertThat(failure.get()).isNull();
        assertThat(read.get()).isEqualTo(2.5f);
        loader.close();
        return new WeakReference<>(loader);
    }
}
