package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interfaces of a named module in a module layer of its own (a plugin's): bound when the module
 * exports their package to everyone; refused with a message that says which export to add when
 * it does not (the message named the class loaders first and the export only in the JDK's
 * {@code IllegalAccessError} at its end, until 12-06).
 */
class NamedModuleInterfaceTest {
    static final Layout LAYOUT = Layout.parse("pointer(ij,16).dense(ij,8).place(f32 phi)");

    @TempDir
    Path dir;

    /** The module {@code plugin} with the interface {@code plugin.api.Grid}, in a layer of its own. */
    private Class<?> pluginGrid(String moduleBody) throws Exception {
        Path sources = dir.resolve("src");
        Path grid = sources.resolve("plugin/api/Grid.java");
        Files.createDirectories(grid.getParent());
        Files.writeString(grid, """
                package plugin.api;

                public interface Grid {
                    float phi(int i, int j);

                    void phi(int i, int j, float value);
                }
                """);
        Path moduleInfo = sources.resolve("module-info.java");
        Files.writeString(moduleInfo, "module plugin { " + moduleBody + " }\n");
        Path bin = dir.resolve("bin");
        SourceCompiler.compile(bin, grid, moduleInfo);
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolve(ModuleFinder.of(bin), ModuleFinder.of(), Set.of("plugin"));
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(configuration,
                NamedModuleInterfaceTest.class.getClassLoader());
        return layer.findLoader("plugin").loadClass("plugin.api.Grid");
    }

    @Test
    void anInterfaceOfAnExportedPackageIsBound() throws Exception {
        Class<?> api = pluginGrid("exports plugin.api;");
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            Object grid = rt.bind(api);
            Method set = api.getMethod("phi", int.class, int.class, float.class);
            Method get = api.getMethod("phi", int.class, int.class);
            set.invoke(grid, 3, 4, 1.5f);
            assertThat(get.invoke(grid, 3, 4)).isEqualTo(1.5f);
            Object cached = rt.accessor(api);
            assertThat(get.invoke(cached, 3, 4)).isEqualTo(1.5f);
        }
    }

    @Test
    void anInterfaceOfAPackageNotExportedIsRefusedNamingTheExportToAdd() throws Exception {
        Class<?> api = pluginGrid("");
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            assertThatThrownBy(() -> rt.bind(api)).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("cannot define the implementation of plugin.api.Grid: module plugin "
                            + "does not export package plugin.api")
                    .hasMessageContaining("add 'exports plugin.api;'");
            assertThatThrownBy(() -> rt.accessor(api)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("add 'exports plugin.api;'");
            assertThat(rt.generic().getFloat("phi", 3, 4)).as("the runtime goes on").isZero();
        }
    }
}
