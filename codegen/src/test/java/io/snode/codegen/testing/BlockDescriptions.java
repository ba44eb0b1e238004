package io.snode.codegen.testing;

import io.snode.codegen.internal.structfor.ActiveBlocks;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Snapshots of active blocks as text, for comparing two walks block by block. */
public final class BlockDescriptions {
    private BlockDescriptions() {
    }

    /** Everything a launch reads of a snapshot, block by block: memory, base, counts, length and mask words. */
    public static List<String> describe(ActiveBlocks blocks) {
        List<String> lines = new ArrayList<>();
        for (int b = 0; b < blocks.size(); b++) {
            StringBuilder line = new StringBuilder();
            line.append(blocks.segment(b).address()).append('+').append(blocks.container(b))
                    .append(' ').append(Arrays.toString(blocks.base(b)))
                    .append(" cells ").append(blocks.activeCells(b)).append(" length ").append(blocks.length(b));
            for (int word = 0; word < blocks.maskWords(); word++) {
                line.append(' ').append(Long.toHexString(blocks.masks()[b * blocks.maskWords() + word]));
            }
            lines.add(line.toString());
        }
        return lines;
    }
}
