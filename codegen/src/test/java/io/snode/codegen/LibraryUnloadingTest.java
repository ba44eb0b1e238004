package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.lang.ref.WeakReference;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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
        WeakReference<ClassLoader> copy = useACopy();
        for (int n = 0; n < 100 && copy.get() != null; n++) {
            System.gc();
            byte[][] garbage = new byte[64][];
            for (int g = 0; g < garbage.length; g++) {
                garbage[g] = new byte[1 << 16];
            }
        }
        assertThat(copy.get()).as("the library's loader after its runtime was closed").isNull();
    }

    /** Compiles, binds {@link Cells}, writes, reads and closes in a copy of the library, on a thread that ends. */
    private static WeakReference<ClassLoader> useACopy() throws Exception {
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
                try (AutoCloseable runtime = (AutoCloseable) runtimeClass.getMethod("compile", layoutClass)
                        .invoke(null, layout)) {
                    Cells cells = (Cells) runtimeClass.getMethod("bind", Class.class).invoke(runtime, Cells.class);
                    cells.x(9, 2.5f);
                    read.set(cells.x(9));
                    Cells accessor = (Cells) runtimeClass.getMethod("accessor", Class.class).invoke(runtime, Cells.class);
                    accessor.x(17, 1f);
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
