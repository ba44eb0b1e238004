package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.codegen.interop.Vdb;
import io.snode.codegen.kernel.Kernel3;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad arguments of public methods found by a reflective sweep (12-06): each is refused up front
 * with a message that names it (they failed deep inside with a message-less
 * NullPointerException, were accepted, or named a temporary file).
 */
class ArgumentChecksTest {
    static final Layout L = Layout.parse("pointer(ijk,4).dense(ijk,8).place(f32 phi)");

    @Test
    void nullsAreNamed() {
        try (SNodeRuntime rt = SNodeRuntime.compile(L)) {
            assertThatThrownBy(() -> rt.forEach((ActiveSet) null, (Kernel3) (i, j, k) -> { }))
                    .isInstanceOf(NullPointerException.class).hasMessage("set");
            assertThatThrownBy(() -> L.snode(2).size(null)).isInstanceOf(NullPointerException.class).hasMessage("axis");
            assertThatThrownBy(() -> L.snode(2).extent(null)).isInstanceOf(NullPointerException.class).hasMessage("axis");
            assertThatThrownBy(() -> rt.plan().path((io.snode.api.PlacedField) null))
                    .isInstanceOf(NullPointerException.class).hasMessage("field");
            assertThatThrownBy(() -> rt.plan().node(L.snode(2)).fieldOffset(null))
                    .isInstanceOf(NullPointerException.class).hasMessage("field");
            rt.generic().setFloat("phi", 1f, 1, 2, 3);
            assertThatThrownBy(() -> rt.forEachBlock(L.snode(2), block -> block.fieldOffset(null)))
                    .hasRootCauseInstanceOf(NullPointerException.class).hasRootCauseMessage("field");
        }
    }

    @Test
    void anExportOriginMustBeFiniteAndAMissingDirectoryIsNamedAsTheTargets(@TempDir Path dir) {
        assertThatThrownBy(() -> Vdb.ExportOptions.DEFAULTS.transform(1.0, Double.NaN, 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("origin");
        assertThatThrownBy(() -> Vdb.ExportOptions.DEFAULTS.transform(1.0, 0, Double.POSITIVE_INFINITY, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("origin");
        Path target = dir.resolve("missing/out.vdb");
        try (SNodeRuntime rt = SNodeRuntime.compile(L)) {
            rt.generic().setFloat("phi", 1f, 1, 2, 3);
            assertThatThrownBy(() -> Vdb.export(rt, "phi", target, Vdb.ExportOptions.DEFAULTS))
                    .isInstanceOf(NoSuchFileException.class).hasMessageContaining(target.toString())
                    .hasMessageNotContaining(".tmp");
        }
    }
}
