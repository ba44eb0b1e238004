package io.snode.codegen.internal.emit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.runtime.internal.GeneratedCalls;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

class RuntimeMethodsTest {

    @Test
    void everyEntryNamesAMethodOfItsOwnerWithItsDescriptorAndOpcode() throws Exception {
        List<RuntimeMethod> entries = entries();
        for (int arity = 1; arity <= 8; arity++) {
            entries.add(RuntimeMethods.kernelApply(arity));
        }
        assertThat(entries).hasSizeGreaterThan(40);
        for (RuntimeMethod entry : entries) {
            Class<?> owner = Class.forName(entry.owner().replace('/', '.'), false, getClass().getClassLoader());
            if (entry.name().equals("<init>")) {
                assertThat(entry.opcode()).isEqualTo(Opcodes.INVOKESPECIAL);
                assertThat(Arrays.stream(owner.getDeclaredConstructors()).map(Type::getConstructorDescriptor))
                        .as(entry.toString()).contains(entry.descriptor());
                continue;
            }
            Method method = Arrays.stream(owner.getDeclaredMethods())
                    .filter(m -> m.getName().equals(entry.name())
                            && Type.getMethodDescriptor(m).equals(entry.descriptor()))
                    .findFirst().orElseThrow(() -> new AssertionError("no method " + entry));
            int expected = Modifier.isStatic(method.getModifiers()) ? Opcodes.INVOKESTATIC
                    : owner.isInterface() ? Opcodes.INVOKEINTERFACE : Opcodes.INVOKEVIRTUAL;
            assertThat(entry.opcode()).as(entry.toString()).isEqualTo(expected);
            assertThat(entry.isInterface()).as(entry.toString()).isEqualTo(owner.isInterface());
        }
    }

    @Test
    void theTableHoldsTheDescriptorsOfTheRealMethods() {
        assertThat(RuntimeMethods.CHILD.toString())
                .isEqualTo("io/snode/runtime/internal/GeneratedCalls.child(Lio/snode/runtime/internal/CheckedCells;J)"
                        + "Ljava/lang/foreign/MemorySegment;");
        assertThat(RuntimeMethods.GET_LONG.isInterface()).isTrue();
        assertThat(RuntimeMethods.kernelApply(3).descriptor()).isEqualTo("(III)V");
    }

    @Test
    void aMissingHelperFailsWithItsName() {
        assertThatThrownBy(() -> RuntimeMethod.of(GeneratedCalls.class, "childAt", MemorySegment.class, long.class))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("io.snode.runtime.internal.GeneratedCalls.childAt(MemorySegment, long)")
                .hasMessageContaining("renamed");
        assertThatThrownBy(() -> RuntimeMethod.of(GeneratedCalls.class, "child", MemorySegment.class, int.class))
                .hasMessageContaining("GeneratedCalls.child(MemorySegment, int)");
        assertThatThrownBy(() -> RuntimeMethod.constructor(GeneratedCalls.class, String.class))
                .hasMessageContaining("GeneratedCalls.<init>(String)");
    }

    private static List<RuntimeMethod> entries() throws IllegalAccessException {
        List<RuntimeMethod> entries = new ArrayList<>();
        for (Field field : RuntimeMethods.class.getDeclaredFields()) {
            if (field.getType() == RuntimeMethod.class && Modifier.isStatic(field.getModifiers())) {
                RuntimeMethod entry = (RuntimeMethod) field.get(null);
                assertThat(entry).as(field.getName()).isNotNull();
                entries.add(entry);
            }
        }
        return entries;
    }
}
