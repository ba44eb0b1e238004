package io.snode.codegen.testing;

import io.snode.api.Layout;
import io.snode.api.PlacedField;
import io.snode.api.SNode;
import io.snode.codegen.SNodeRuntime;
import io.snode.runtime.testing.LayoutModel;
import java.util.List;
import java.util.Random;

/** Random activity for struct-for tests: writes to random fields, with some deactivations and collections. */
public final class RandomWrites {
    private RandomWrites() {
    }

    /**
     * {@code writes} random writes through the generic path; after each, one time in
     * {@code deactivateOneIn} a random cell of a random sparse SNode is deactivated, and one time
     * in {@code collectOneIn} (0: never) the runtime collects.
     */
    public static void apply(SNodeRuntime rt, Layout layout, Random random, int writes, int deactivateOneIn,
                             int collectOneIn) {
        List<SNode> sparse = layout.snodes().stream().filter(s -> s.kind().isSparse()).toList();
        for (int n = 0; n < writes; n++) {
            PlacedField field = layout.fields().get(random.nextInt(layout.fields().size()));
            int[] at = LayoutModel.coordinates(field.snode(), random);
            rt.generic().writeBits(field, LayoutModel.randomBits(field.type(), random), at);
            if (random.nextInt(deactivateOneIn) == 0 && !sparse.isEmpty()) {
                SNode node = sparse.get(random.nextInt(sparse.size()));
                rt.generic().deactivate(node, LayoutModel.deactivationCoordinates(node, random));
            }
            if (collectOneIn > 0 && random.nextInt(collectOneIn) == 0) {
                rt.gc();
            }
        }
    }
}
