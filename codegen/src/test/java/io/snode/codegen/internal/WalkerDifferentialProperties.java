package io.snode.codegen.internal;

import static io.snode.codegen.testing.BlockDescriptions.describe;
import static org.assertj.core.api.Assertions.assertThat;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.api.testing.RandomLayouts;
import io.snode.codegen.GeneratedClass;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.testing.BlockDescriptions;
import io.snode.codegen.internal.structfor.ActiveBlocks;
import io.snode.codegen.internal.structfor.Launcher;
import io.snode.codegen.testing.RandomWrites;
import io.snode.runtime.internal.NodeTree;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;

/**
 * The generated first phase of a snapshot ({@link WalkerEmitter}) and the generic walk agree
 * block for block (order, memory, base coordinates, masks, lengths) on random layouts, for every
 * SNode whose parent is a pointer node, after random writes and deactivations.
 */
@Tag("scalar-fallback")
class WalkerDifferentialProperties {
    static final RandomLayouts.Options SMALL = new RandomLayouts.Options(2, 4, 2, 4, 4096, 12);

    @Property(tries = 200)
    void generatedAndGenericWalksAgree(@ForAll("layouts") Layout layout, @ForAll("seeds") long seed) {
        Random random = new Random(seed);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            RandomWrites.apply(rt, layout, random, 40, 6, 20);
            NodeTree structure = rt.generic().internalTree();
            List<GeneratedClass> listed = new ArrayList<>();
            try (Launcher launcher = new Launcher(structure, 1, listed::add)) {
                for (SNode node : layout.snodes()) {
                    if (node.kind() == io.snode.api.NodeKind.ROOT || !WalkerEmitter.applies(node)) {
                        continue;
                    }
                    ActiveBlocks generated = launcher.snapshot(node);
                    ActiveBlocks generic = ActiveBlocks.of(structure, node);
                    assertThat(generated.size()).as("blocks of %s in %s", node.path(), layout).isEqualTo(generic.size());
                    for (int b = 0; b < generic.size(); b++) {
                        assertThat(generated.segment(b)).isSameAs(generic.segment(b));
                        assertThat(generated.container(b)).isEqualTo(generic.container(b));
                        assertThat(generated.base(b)).isEqualTo(generic.base(b));
                        assertThat(generated.activeCells(b)).isEqualTo(generic.activeCells(b));
                        assertThat(generated.length(b)).isEqualTo(generic.length(b));
                    }
                    if (generic.masks() != null) {
                        assertThat(java.util.Arrays.copyOf(generated.masks(), generic.size() * generic.maskWords()))
                                .isEqualTo(java.util.Arrays.copyOf(generic.masks(), generic.size() * generic.maskWords()));
                    }
                }
            }
            assertThat(listed).allSatisfy(c -> assertThat(c.disassembly()).contains("walk([I[JI)I"));
        }
    }

    /**
     * A launch's snapshot refills the arrays of the previous launch's ({@link Launcher#withSnapshot}):
     * after more writes, deactivations and collections, the refilled one equals a fresh generic
     * walk, for every SNode (leaf, inner, pointer and dynamic targets, deep or under a pointer
     * parent), whether the set of blocks grew or shrank.
     */
    @Property(tries = 150)
    void refilledSnapshotsEqualFreshOnes(@ForAll("layouts") Layout layout, @ForAll("seeds") long seed) {
        Random random = new Random(seed);
        try (SNodeRuntime rt = SNodeRuntime.compile(layout)) {
            NodeTree structure = rt.generic().internalTree();
            try (Launcher launcher = new Launcher(structure, 1, c -> { })) {
                for (int round = 0; round < 4; round++) {
                    RandomWrites.apply(rt, layout, random, round == 2 ? 5 : 30, 3 + round, 15);
                    if (round == 3) {
                        for (SNode node : layout.snodes()) {
                            if (node.kind().isSparse()) {
                                rt.generic().deactivateAll(node);
                            }
                        }
                        RandomWrites.apply(rt, layout, random, 3, Integer.MAX_VALUE, 0);
                    }
                    for (SNode node : layout.snodes()) {
                        if (node.kind() == io.snode.api.NodeKind.ROOT) {
                            continue;
                        }
                        List<String> launched = launcher.withSnapshot(node, BlockDescriptions::describe);
                        assertThat(launched).as("round %d, %s in %s", round, node.path(), layout)
                                .isEqualTo(describe(ActiveBlocks.of(structure, node)));
                    }
                }
            }
        }
    }

    @Provide
    Arbitrary<Layout> layouts() {
        return RandomLayouts.layouts(SMALL);
    }

    @Provide
    Arbitrary<Long> seeds() {
        return Arbitraries.longs();
    }
}
