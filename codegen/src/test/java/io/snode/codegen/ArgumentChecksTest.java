package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.codegen.interop.Vdb;
import io.snode.api.SNode;
import io.snode.codegen.kernel.Kernel3;
import io.snode.codegen.kernel.KernelException;
import io.snode.codegen.kernel.LeafBlock;
import java.lang.foreign.MemorySegment;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
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

    /**
     * Nulls given to public constructors (they were accepted and failed later, or with the JVM's
     * message) and field or method names given as null to a runtime's lookups (they gave
     * "field=null is not in the layout" or "name=null is not a generated method", an
     * IllegalArgumentException): each a NullPointerException whose message is the parameter.
     */
    @Test
    void nullsGivenToConstructorsAndLookupsAreNamed() {
        RuntimeException cause = new RuntimeException("kernel");
        npe(() -> new KernelException(null, new int[] {1}, cause), "snodePath");
        npe(() -> new KernelException("root/dense", null, cause), "coordinates");
        npe(() -> new KernelException("root/dense", new int[] {1}, null), "cause");
        npe(() -> new GeneratedClass("x", null, "plan"), "bytes");

        SNode dense = L.snode(2);
        MemorySegment memory = MemorySegment.ofArray(new byte[512 * 4]);
        int[] bases = {0, 0, 0};
        int[] sizes = {8, 8, 8};
        long[] offsets = {0};
        npe(() -> new LeafBlock(null, memory, 0, 4, 512, bases, 0, sizes, null, 0, 0, 512, offsets), "snode");
        npe(() -> new LeafBlock(dense, null, 0, 4, 512, bases, 0, sizes, null, 0, 0, 512, offsets), "memory");
        npe(() -> new LeafBlock(dense, memory, 0, 4, 512, null, 0, sizes, null, 0, 0, 512, offsets), "bases");
        npe(() -> new LeafBlock(dense, memory, 0, 4, 512, bases, 0, null, null, 0, 0, 512, offsets), "sizes");
        npe(() -> new LeafBlock(dense, memory, 0, 4, 512, bases, 0, sizes, null, 0, 0, 512, null), "fieldOffsets");
        MemorySegment[] chunks = {memory};
        long[] chunkOffsets = {0};
        npe(() -> new LeafBlock(null, 4, 16, 4, chunks, chunkOffsets, 0, bases, 0, sizes, offsets), "snode");
        npe(() -> new LeafBlock(dense, 4, 16, 4, null, chunkOffsets, 0, bases, 0, sizes, offsets), "chunkMemory");
        npe(() -> new LeafBlock(dense, 4, 16, 4, chunks, null, 0, bases, 0, sizes, offsets), "chunkOffsets");
        npe(() -> new LeafBlock(dense, 4, 16, 4, chunks, chunkOffsets, 0, null, 0, sizes, offsets), "bases");
        npe(() -> new LeafBlock(dense, 4, 16, 4, chunks, chunkOffsets, 0, bases, 0, null, offsets), "sizes");
        npe(() -> new LeafBlock(dense, 4, 16, 4, chunks, chunkOffsets, 0, bases, 0, sizes, null), "fieldOffsets");

        try (SNodeRuntime rt = SNodeRuntime.compile(L)) {
            npe(() -> rt.handle(null), "name");
            npe(() -> rt.getter(null), "field");
            npe(() -> rt.setter(null), "field");
            npe(() -> rt.adder(null), "field");
            npe(() -> rt.appender(null), "field");
            npe(() -> rt.forEach((String) null, (Kernel3) (i, j, k) -> { }), "field");
            npe(() -> rt.sum(null), "field");
            npe(() -> rt.min(null), "field");
            npe(() -> rt.max(null), "field");
            npe(() -> rt.count(null), "field");
        }
    }

    /** A block's origin coordinate outside its index axes (it was the JDK's ArrayIndexOutOfBoundsException). */
    @Test
    void anOriginCoordinateOutsideTheAxesNamesItAndTheRange() {
        LeafBlock block = new LeafBlock(L.snode(2), MemorySegment.ofArray(new byte[512 * 4]), 0, 4, 512,
                new int[] {1, 2, 3}, 0, new int[] {8, 8, 8}, null, 0, 0, 512, new long[] {0});
        String path = L.snode(2).path();
        assertThatThrownBy(() -> block.origin(3)).isExactlyInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("n=3 is not in [0, 3) (the index axes of " + path + ")");
        assertThatThrownBy(() -> block.origin(-1)).isExactlyInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("n=-1 is not in [0, 3) (the index axes of " + path + ")");
        org.assertj.core.api.Assertions.assertThat(block.origin()).containsExactly(8, 16, 24);
        // It printed LeafBlock@hash until 12-07.
        org.assertj.core.api.Assertions.assertThat(block).hasToString("LeafBlock[" + path + " at [8, 16, 24]: 512 cells]");
        org.assertj.core.api.Assertions.assertThat(new LeafBlock(L.snode(2), 40, 16, 4,
                        new MemorySegment[] {MemorySegment.ofArray(new byte[64])}, new long[] {0}, 0, new int[] {0, 0, 0}, 0,
                        new int[] {8, 8, 8}, new long[] {0}))
                .hasToString("LeafBlock[" + path + " at [0, 0, 0]: 40 elements in 3 chunks of 16]");
    }

    /**
     * A list's block with a chunk size that is not positive or a negative length: until 12-07 a
     * chunk size of 0 gave the JDK's "/ by zero" and a negative one a negative chunk count.
     */
    @Test
    void aListBlockRefusesAChunkSizeThatIsNotPositiveAndANegativeLength() {
        SNode dense = L.snode(2);
        MemorySegment[] chunks = {MemorySegment.ofArray(new byte[64])};
        long[] chunkOffsets = {0};
        int[] bases = {0, 0, 0};
        int[] sizes = {8, 8, 8};
        long[] offsets = {0};
        assertThatThrownBy(() -> new LeafBlock(dense, 4, 0, 4, chunks, chunkOffsets, 0, bases, 0, sizes, offsets))
                .isExactlyInstanceOf(IllegalArgumentException.class).hasMessage("chunkSize=0 is not positive");
        assertThatThrownBy(() -> new LeafBlock(dense, 4, -16, 4, chunks, chunkOffsets, 0, bases, 0, sizes, offsets))
                .isExactlyInstanceOf(IllegalArgumentException.class).hasMessage("chunkSize=-16 is not positive");
        assertThatThrownBy(() -> new LeafBlock(dense, -1, 16, 4, chunks, chunkOffsets, 0, bases, 0, sizes, offsets))
                .isExactlyInstanceOf(IllegalArgumentException.class).hasMessage("length=-1 is negative");
        org.assertj.core.api.Assertions.assertThat(
                new LeafBlock(dense, 0, 16, 4, chunks, chunkOffsets, 0, bases, 0, sizes, offsets).chunkCount()).isZero();
    }

    /**
     * A box corner outside an axis of extent 2^31 - 1 names the range of corners, [0, extent]:
     * until 12-06 the message gave "[0, extent + 1)" computed in int, "[0, -2147483648)".
     */
    @Test
    void aCornerOutsideTheLargestExtentNamesARangeThatIsOne() {
        try (SNodeRuntime runtime = SNodeRuntime.compile(io.snode.api.Layout.parse("hash(i,2147483647).dense(i,1).place(i32 x)"))) {
            io.snode.api.SNode cells = runtime.layout().field("x").snode().parent();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> io.snode.codegen.interop.Bulk.read(runtime, "x",
                            new int[] {-1}, new int[] {1}, new int[2]))
                    .isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessage("field x low: axis i index=-1 is outside [0, 2147483647]");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> runtime.deactivateBox(cells, new int[] {0},
                            new int[] {Integer.MIN_VALUE}))
                    .isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessageEndingWith("high: axis i index=-2147483648 is outside [0, 2147483647]");
        }
    }

    private static void npe(ThrowingCallable call, String parameter) {
        assertThatThrownBy(call).isExactlyInstanceOf(NullPointerException.class).hasMessage(parameter);
    }
}
