package io.snode.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code --structure}'s splitter: commas outside brackets separate, those of a layout text do not. */
class CommaListTest {
    private static final String L1 = "pointer(ijk,64).pointer(ijk,16).dense(ijk,8).place(f32 phi)";

    @Test
    void namesSplitAtEveryComma() {
        assertThat(CommaList.split("L1,L2,hashmap")).containsExactly("L1", "L2", "hashmap");
        assertThat(CommaList.split("L1")).containsExactly("L1");
    }

    @Test
    void commasInsideParenthesesStayInTheirItem() {
        assertThat(CommaList.split("L1," + L1 + ",hashmap")).containsExactly("L1", L1, "hashmap");
        assertThat(CommaList.split(L1)).containsExactly(L1);
    }

    @Test
    void bracketsAndBracesNestToo() {
        String sizes = "pointer(ijk,[16,16,16]).dense(ijk,[8,8,8]).place(f32 phi, f32 vx)";
        String block = "pointer(ijk,16){ place(f32 coarse, i32 flag); pointer(ijk,16).dense(ijk,8).place(f32 phi) }";
        assertThat(CommaList.split(sizes + "," + block + ",L2")).containsExactly(sizes, block, "L2");
    }

    @Test
    void itemsAreStrippedAndSpacesInsideAreKept() {
        assertThat(CommaList.split("  L1 ,\t" + L1 + "  , dense\n")).containsExactly("L1", L1, "dense");
        assertThat(CommaList.split("pointer(ijk, 64) . dense(ijk, 8).place(f32 phi)"))
                .containsExactly("pointer(ijk, 64) . dense(ijk, 8).place(f32 phi)");
    }

    @Test
    void emptyItemsAreDropped() {
        assertThat(CommaList.split(",L1,,L2,")).containsExactly("L1", "L2");
        assertThat(CommaList.split(" , ,")).isEmpty();
        assertThat(CommaList.split("")).isEmpty();
    }

    @Test
    void unbalancedBracketsLeaveTheTextForTheParser() {
        // An opening bracket never closed keeps the rest in its item: the parser names the column.
        assertThat(CommaList.split("L1,pointer(ijk,16.place(f32 phi),L2"))
                .containsExactly("L1", "pointer(ijk,16.place(f32 phi),L2");
        // A stray closing bracket does not make later commas count as inside.
        assertThat(CommaList.split("a),b,c(d,e)")).containsExactly("a)", "b", "c(d,e)");
    }
}
