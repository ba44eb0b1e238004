package io.snode.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.MemoryCapExceededException;
import io.snode.api.SNode;
import org.junit.jupiter.api.Test;

/**
 * Activations that need no memory (a voxel of an existing bitmasked block) take the one-walk
 * path: they allocate nothing, count as a change exactly when a bit was set, and an activation
 * that does need memory stores nothing before it knows it can have it.
 */
class InlineActivationTest {
    private static MemoryCapExceededException refuse(SNode owner) {
        return new MemoryCapExceededException(owner.path(), 0, 1, 1);
    }

    @Test
    void aVoxelOfAnExistingBlockIsActivatedWithoutAllocatingAndCountedOnce() {
        Layout layout = Layout.parse("pointer(ijk,4).bitmasked(ijk,8).place(f32 phi)");
        SNode leaf = layout.snode(2);
        try (SparseRuntime rt = SparseRuntime.create(layout)) {
            rt.setFloat("phi", 1.5f, 1, 2, 3); // publishes the block and sets one bit
            rt.internalStructure().probeAllocations(owner -> {
                throw refuse(owner);
            });
            long before = rt.internalStructure().activations();
            rt.setFloat("phi", 2.5f, 1, 2, 4);
            assertThat(rt.internalStructure().activations()).isEqualTo(before + 1);
            rt.setFloat("phi", 3.5f, 1, 2, 4); // already active: no change to count
            assertThat(rt.internalStructure().activations()).isEqualTo(before + 1);
            assertThat(rt.isActive(leaf, 1, 2, 4)).isTrue();
            assertThat(rt.getFloat("phi", 1, 2, 4)).isEqualTo(3.5f);
            assertThat(rt.getFloat("phi", 1, 2, 3)).isEqualTo(1.5f);
            // A voxel of a block that does not exist still needs a cell, and is refused with nothing set.
            assertThatThrownBy(() -> rt.setFloat("phi", 1f, 9, 9, 9)).isInstanceOf(MemoryCapExceededException.class);
            assertThat(rt.isActive(leaf, 9, 9, 9)).isFalse();
        }
    }

    @Test
    void aClearBitAboveAPointerStepIsNotSetWhenTheCellBelowIsRefused() {
        Layout layout = Layout.parse("bitmasked(ijk,4).pointer(ijk,4).dense(ijk,2).place(i32 n)");
        SNode top = layout.snode(1);
        try (SparseRuntime rt = SparseRuntime.create(layout)) {
            rt.internalStructure().probeAllocations(owner -> {
                throw refuse(owner);
            });
            long before = rt.internalStructure().activations();
            assertThatThrownBy(() -> rt.setInt("n", 7, 3, 3, 3)).isInstanceOf(MemoryCapExceededException.class);
            assertThat(rt.isActive(top, 0, 0, 0)).as("the top bit stays clear").isFalse();
            assertThat(rt.internalStructure().activations()).isEqualTo(before);
            rt.internalStructure().probeAllocations(null);
            rt.setInt("n", 7, 3, 3, 3);
            assertThat(rt.isActive(top, 0, 0, 0)).isTrue();
            assertThat(rt.getInt("n", 3, 3, 3)).isEqualTo(7);
        }
    }
}
