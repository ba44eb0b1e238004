package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interfaces that another class loader defined (plugin systems, application servers, the
 * source launcher) can be bound and get accessors: the implementation is defined where both
 * the interface and the library are visible.
 */
class ForeignClassLoaderTest {
    static final Layout LAYOUT = Layout.parse("pointer(ij,16).dense(ij,8).place(f32 phi)");

    @TempDir
    static Path classes;

    @BeforeAll
    static void compileThePluginInterface() throws Exception {
        Path source = classes.resolve("src/plugin/Grid.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, """
                package plugin;

                public interface Grid {
                    float phi(int i, int j);

                    void phi(int i, int j, float value);

                    float addPhi(int i, int j, float delta);
                }
                """);
        SourceCompiler.compile(classes.resolve("bin"), source);
    }

    private static URLClassLoader loader(ClassLoader parent) throws Exception {
        return new URLClassLoader(new URL[] {classes.resolve("bin").toUri().toURL()}, parent);
    }

    @Test
    void bindWorksForAnInterfaceOfAChildLoader() throws Exception {
        try (URLClassLoader plugin = loader(ForeignClassLoaderTest.class.getClassLoader());
             SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            Class<?> api = plugin.loadClass("plugin.Grid");
            exercise(rt, api, rt.bind(api));
        }
    }

    @Test
    void accessorWorksForAnInterfaceOfAChildLoader() throws Exception {
        try (URLClassLoader plugin = loader(ForeignClassLoaderTest.class.getClassLoader());
             SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            Class<?> api = plugin.loadClass("plugin.Grid");
            exercise(rt, api, rt.accessor(api));
            assertThat(rt.accessor(api)).as("a second accessor of the same interface").isNotNull();
        }
    }

    @Test
    void bindAndAccessorWorkForALoaderThatCannotSeeTheLibrary() throws Exception {
        try (URLClassLoader plugin = loader(ClassLoader.getPlatformClassLoader());
             SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            Class<?> api = plugin.loadClass("plugin.Grid");
            assertThat(api.getClassLoader().getParent()).isSameAs(ClassLoader.getPlatformClassLoader());
            exercise(rt, api, rt.bind(api));
            rt.generic().setFloat("phi", 0f, 100, 120);
            exercise(rt, api, rt.accessor(api));
        }
    }

    @Test
    void viewsWorkForAnInterfaceOfALoaderThatCannotSeeTheLibrary() throws Exception {
        try (URLClassLoader plugin = loader(ClassLoader.getPlatformClassLoader());
             SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            Class<?> api = plugin.loadClass("plugin.Grid");
            Method get = api.getMethod("phi", int.class, int.class);
            Method set = api.getMethod("phi", int.class, int.class, float.class);
            rt.generic().setFloat("phi", 2f, 100, 120);
            java.util.List<Object> views = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            @SuppressWarnings("unchecked")
            Class<Object> type = (Class<Object>) api;
            rt.forEach(LAYOUT.field("phi").snode(), type, (io.snode.codegen.kernel.ViewKernel2<Object>) (view, i, j) -> {
                try {
                    set.invoke(view, i, j, (Float) get.invoke(view, i, j) + 1f);
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
                views.add(view);
            });
            assertThat(views).isNotEmpty().allSatisfy(view -> {
                assertThat(api.isInstance(view)).isTrue();
                assertThat(view.getClass().isHidden()).isTrue();
            });
            assertThat(rt.generic().getFloat("phi", 100, 120)).isEqualTo(3f);
            assertThat(rt.generic().getFloat("phi", 101, 120)).isEqualTo(1f); // the block's other cells: 0 + 1
        }
    }

    @Test
    void twoLoadersOfTheSameInterfaceGetTheirOwnImplementations() throws Exception {
        try (URLClassLoader first = loader(ForeignClassLoaderTest.class.getClassLoader());
             URLClassLoader second = loader(ForeignClassLoaderTest.class.getClassLoader());
             SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            Class<?> one = first.loadClass("plugin.Grid");
            Class<?> other = second.loadClass("plugin.Grid");
            assertThat(one).isNotSameAs(other);
            Object a = rt.bind(one);
            Object b = rt.bind(other);
            assertThat(one.isInstance(a) && !one.isInstance(b)).isTrue();
            assertThat(other.isInstance(b)).isTrue();
        }
    }

    /** On the test class path too, with other methods: the library's loader knows a different class of the name. */
    public interface Twin {
        double phi();
    }

    @Test
    void theInterfaceIsTheOneGivenEvenWhenTheLibrarysLoaderKnowsAnotherOfItsName() throws Exception {
        Path source = classes.resolve("twin/io/snode/codegen/ForeignClassLoaderTest.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, """
                package io.snode.codegen;

                public class ForeignClassLoaderTest {
                    public interface Twin {
                        float phi(int i, int j);

                        void phi(int i, int j, float value);

                        float addPhi(int i, int j, float delta);
                    }
                }
                """);
        Path bin = classes.resolve("twin-bin");
        SourceCompiler.compile(bin, source);
        String name = Twin.class.getName();
        try (URLClassLoader childFirst = new URLClassLoader(new URL[] {bin.toUri().toURL()},
                ForeignClassLoaderTest.class.getClassLoader()) {
                    @Override
                    protected Class<?> loadClass(String className, boolean resolve) throws ClassNotFoundException {
                        if (!className.equals(name) && !className.equals(ForeignClassLoaderTest.class.getName())) {
                            return super.loadClass(className, resolve);
                        }
                        synchronized (getClassLoadingLock(className)) {
                            Class<?> loaded = findLoadedClass(className);
                            return loaded != null ? loaded : findClass(className);
                        }
                    }
                };
             SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            Class<?> api = childFirst.loadClass(name);
            assertThat(api).isNotSameAs(Twin.class);
            exercise(rt, api, rt.bind(api));
            rt.generic().setFloat("phi", 0f, 100, 120);
            exercise(rt, api, rt.accessor(api));
        }
    }

    /** Writes, adds and reads through {@code grid} and checks the generic path saw it. */
    private static void exercise(SNodeRuntime rt, Class<?> api, Object grid) throws Exception {
        assertThat(api.isInstance(grid)).isTrue();
        assertThat(grid.getClass().isHidden()).as("still a hidden class").isTrue();
        assertThat(grid.getClass().getPackageName()).isEqualTo("io.snode.codegen.generated");
        Method set = api.getMethod("phi", int.class, int.class, float.class);
        Method get = api.getMethod("phi", int.class, int.class);
        Method add = api.getMethod("addPhi", int.class, int.class, float.class);
        set.invoke(grid, 100, 120, 1.5f);
        assertThat(add.invoke(grid, 100, 120, 1f)).isEqualTo(1.5f);
        assertThat(get.invoke(grid, 100, 120)).isEqualTo(2.5f);
        assertThat(get.invoke(grid, 101, 120)).isEqualTo(0f);
        assertThat(rt.generic().getFloat("phi", 100, 120)).isEqualTo(2.5f);
    }
}
