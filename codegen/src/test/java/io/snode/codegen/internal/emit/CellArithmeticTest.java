package io.snode.codegen.internal.emit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.objectweb.asm.Opcodes.ILOAD;
import static org.objectweb.asm.Opcodes.IRETURN;
import static org.objectweb.asm.Opcodes.LLOAD;
import static org.objectweb.asm.Opcodes.LRETURN;

import io.snode.api.NodeKind;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.util.Textifier;
import org.objectweb.asm.util.TraceClassVisitor;

/**
 * The axis split and the mask-word offset, each emitted once: the instructions for powers of
 * two and for other sizes, and the values they compute against {@code (v / divisor) % size}.
 */
class CellArithmeticTest {

    @ParameterizedTest
    @CsvSource({"8, 16, false", "1, 16, false", "3, 5, false", "8, 5, false", "3, 16, false", "8, 16, true",
            "6, 7, true"})
    void theSplitsComputeTheQuotientsRemainder(long divisor, int size, boolean wholeAxis) throws Throwable {
        Emitted split = emit((mv, isLong) -> {
            mv.visitVarInsn(isLong ? LLOAD : ILOAD, mv.parameter(0));
            if (isLong) {
                CellArithmetic.longSplit(mv, divisor, size, wholeAxis);
            } else {
                CellArithmetic.intSplit(mv, divisor, size, wholeAxis);
            }
            mv.visitInsn(isLong ? LRETURN : IRETURN);
        });
        long limit = wholeAxis ? divisor * size : 4096;
        for (int v = 0; v < limit; v++) {
            long expected = wholeAxis ? v / divisor : (v / divisor) % size;
            assertThat((int) split.ints().invokeExact(v)).as("v=%d", v).isEqualTo((int) expected);
            assertThat((long) split.longs().invokeExact((long) v)).as("v=%d", v).isEqualTo(expected);
        }
    }

    @Test
    void powersOfTwoAreShiftsAndMasksOtherSizesDivide() throws Throwable {
        String pow2 = emit(intsOnly(mv -> CellArithmetic.intSplit(mv, 8, 16, false))).text();
        assertThat(pow2).contains("ICONST_3\n    IUSHR\n    BIPUSH 15\n    IAND").doesNotContain("IDIV", "IREM");
        String other = emit(intsOnly(mv -> CellArithmetic.intSplit(mv, 3, 5, false))).text();
        assertThat(other).contains("ICONST_3\n    IDIV\n    ICONST_5\n    IREM");
    }

    @Test
    void theMaskWordOfACellIsItsIndexOver64InWords() throws Throwable {
        Emitted offset = emit((mv, isLong) -> {
            mv.visitVarInsn(isLong ? LLOAD : ILOAD, 0);
            if (isLong) {
                CellArithmetic.maskWordOffsetOfCell(mv);
            }
            mv.visitInsn(isLong ? LRETURN : IRETURN);
        });
        for (long cell : new long[] {0, 1, 63, 64, 127, 128, 4095, 1L << 40}) {
            assertThat((long) offset.longs().invokeExact(cell)).isEqualTo(cell / 64 * 8);
        }
    }

    @Test
    void theRootHasNoEmitUnit() {
        assertThat(NodeEmitUnit.of(NodeKind.DENSE)).isNotSameAs(NodeEmitUnit.of(NodeKind.BITMASKED));
        assertThatThrownBy(() -> NodeEmitUnit.of(NodeKind.ROOT)).isInstanceOf(AssertionError.class);
    }

    private interface Body {
        void emit(MethodEmitter mv, boolean isLong);
    }

    /** {@code ints} applies {@code split} to its argument; {@code longs} returns its argument. */
    private static Body intsOnly(Consumer<MethodEmitter> split) {
        return (mv, isLong) -> {
            mv.visitVarInsn(isLong ? LLOAD : ILOAD, 0);
            if (!isLong) {
                split.accept(mv);
            }
            mv.visitInsn(isLong ? LRETURN : IRETURN);
        };
    }

    private record Emitted(MethodHandle ints, MethodHandle longs, String text) {
    }

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    /** A class with {@code static int ints(int v)} and {@code static long longs(long v)}, both of {@code body}. */
    private static Emitted emit(Body body) throws Throwable {
        ClassEmitter owner = new ClassEmitter("io/snode/codegen/internal/emit/Arithmetic"
                + SEQUENCE.incrementAndGet(), "test");
        MethodEmitter ints = owner.method("ints", "(I)I", true, List.of("v"));
        body.emit(ints, false);
        ints.end();
        MethodEmitter longs = owner.method("longs", "(J)J", true, List.of("v"));
        body.emit(longs, true);
        longs.end();
        byte[] bytes = owner.finish();
        StringWriter text = new StringWriter();
        new ClassReader(bytes).accept(new TraceClassVisitor(null, new Textifier(), new PrintWriter(text)), 0);
        MethodHandles.Lookup lookup = MethodHandles.lookup().defineHiddenClass(bytes, true);
        Class<?> type = lookup.lookupClass();
        return new Emitted(lookup.findStatic(type, "ints", MethodType.methodType(int.class, int.class)),
                lookup.findStatic(type, "longs", MethodType.methodType(long.class, long.class)), text.toString());
    }
}
