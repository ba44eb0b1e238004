package io.snode.runtime.internal.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.snode.runtime.HashHeader;
import org.junit.jupiter.api.Test;

/**
 * {@link HashUnit#capacityAfter} (the table a load reserves for a container's cells at once)
 * is the capacity that inserting the cells one by one ends with, as {@code HashUnit.growth}
 * grows a table: checked against that step-by-step model from empty containers and from
 * tables with tombstones.
 */
class HashCapacityAfterTest {
    /** One insertion of a new key at a time, as {@code HashUnit.insert} and {@code growth} do. */
    private static int oneByOne(int capacity, long used, long live, long more) {
        for (long n = 0; n < more; n++) {
            if (capacity == 0) {
                capacity = HashHeader.MIN_CAPACITY;
                used = 0;
                live = 0;
            } else if (used + 1 > HashHeader.maxUsed(capacity)) {
                int next = HashHeader.capacityFor(live + 1);
                if (next > HashHeader.MAX_CAPACITY) {
                    return HashHeader.MAX_CAPACITY; // the insertion is refused (the container is full)
                }
                capacity = next;
                used = live;
            }
            used++;
            live++;
        }
        return capacity;
    }

    @Test
    void fromAnEmptyContainer() {
        for (long more = 0; more < 70_000; more += more < 300 ? 1 : 97) {
            assertThat(HashUnit.capacityAfter(0, 0, 0, more)).as("%d cells", more).isEqualTo(oneByOne(0, 0, 0, more));
        }
        assertThat(HashUnit.capacityAfter(0, 0, 0, 100_000)).isEqualTo(1 << 18);
        assertThat(HashUnit.capacityAfter(0, 0, 0, HashHeader.MAX_LIVE + 5L)).isEqualTo(HashHeader.MAX_CAPACITY);
    }

    @Test
    void fromTablesWithLiveEntriesAndTombstones() {
        for (int capacity = HashHeader.MIN_CAPACITY; capacity <= 1 << 12; capacity <<= 2) {
            int bound = HashHeader.maxUsed(capacity);
            for (int used = 0; used <= bound; used += Math.max(1, bound / 7)) {
                for (int live = 0; live <= used; live += Math.max(1, used / 5)) {
                    for (long more = 0; more < 3 * capacity; more += 1 + more / 9) {
                        assertThat(HashUnit.capacityAfter(capacity, used, live, more))
                                .as("capacity %d, used %d, live %d, %d more", capacity, used, live, more)
                                .isEqualTo(oneByOne(capacity, used, live, more));
                    }
                }
            }
        }
    }
}
