package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.snode.api.Layout;
import io.snode.api.SNode;
import io.snode.codegen.kernel.ViewKernel3;
import java.util.List;
import org.junit.jupiter.api.Test;

class InterfaceBindingTest {
    static final Layout LAYOUT = Layout.parse("pointer(ijk,16).pointer(ijk,16){ dense(ijk,8).place(f32 phi, i64 count);"
            + " dynamic(l,1024,64).place(i32 particle) }; place(f64 time)");

    public interface Grid {
        float phi(int i, int j, int k);

        void phi(int i, int j, int k, float value);

        float addPhi(int i, int j, int k, float delta);

        long getCount(int i, int j, int k);

        void setCount(int i, int j, int k, long value);

        long appendParticle(int i, int j, int k, int particle);

        int particle(int i, int j, int k, int l);

        double time();

        void time(double value);

        default float twicePhi(int i, int j, int k) {
            return 2 * phi(i, j, k);
        }
    }

    public interface WrongArity {
        float phi(int i, int j);
    }

    public interface WrongType {
        double phi(int i, int j, int k);
    }

    public interface UnknownField {
        float rho(int i, int j, int k);
    }

    interface NotPublic {
        float phi(int i, int j, int k);
    }

    /** Object's public methods declared again (to document them, say): every class implements them. */
    public interface WithObjectMethods {
        float phi(int i, int j, int k);

        void phi(int i, int j, int k, float value);

        @Override
        boolean equals(Object other);

        @Override
        int hashCode();

        @Override
        String toString();
    }

    /** An append that returns nothing: the index it took is a long. */
    public interface VoidAppend {
        void appendParticle(int i, int j, int k, int particle);
    }

    /** An append with the element's coordinates: it takes the list's, those of the node's parent. */
    public interface AppendWithElementCoordinates {
        long appendParticle(int i, int j, int k, int l, int particle);
    }

    /** Field getX beside x: {@code getX} is the read of both. */
    public interface GetXAmbiguous {
        float getX(int i);
    }

    /** Each method has one field whose form it takes: addX reads field addX, x writes x, getGetX reads getX. */
    public interface NamesOfTwoFields {
        int addX(int i);

        void x(int i, float value);

        float x(int i);

        float getGetX(int i);

        void addX(int i, int value);
    }

    /** getPhi: a read of f64 Phi (phi is f32); addPhi(i, float) adds to phi, addPhi(i, double) to Phi. */
    public interface CaseOnly {
        double getPhi(int i);

        float addPhi(int i, float delta);

        double addPhi(int i, double delta);
    }

    /** getPhi fits both phi and Phi (both f32). */
    public interface CaseOnlyAmbiguous {
        float getPhi(int i);
    }

    @Test
    void aMethodBindsToTheOneFieldWhoseFormItTakesWhateverTheFieldsOrder() {
        for (String text : List.of("dense(i,4).place(f32 x, i32 addX, f32 getX)", "dense(i,4).place(f32 getX, i32 addX, f32 x)")) {
            try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse(text))) {
                for (NamesOfTwoFields api : List.of(rt.bind(NamesOfTwoFields.class), rt.accessor(NamesOfTwoFields.class))) {
                    api.x(1, 5f);
                    api.addX(2, 7);
                    assertThat(api.x(1)).as(text).isEqualTo(5f);
                    assertThat(api.addX(2)).as(text).isEqualTo(7);
                    assertThat(api.getGetX(1)).as(text).isZero();
                    assertThat(rt.generic().getFloat("x", 1)).isEqualTo(5f);
                    assertThat(rt.generic().getInt("addX", 2)).isEqualTo(7);
                    assertThat(rt.generic().getFloat("getX", 1)).isZero();
                }
                assertThatThrownBy(() -> rt.bind(GetXAmbiguous.class)).as(text).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("GetXAmbiguous.getX").hasMessageContaining("field x")
                        .hasMessageContaining("field getX").hasMessageContaining("getGetX");
            }
        }
        for (String text : List.of("dense(i,4).place(f32 phi, f64 Phi)", "dense(i,4).place(f64 Phi, f32 phi)")) {
            try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse(text))) {
                CaseOnly api = rt.bind(CaseOnly.class);
                api.addPhi(1, 2f);
                api.addPhi(1, 3.0);
                assertThat(rt.generic().getFloat("phi", 1)).as(text).isEqualTo(2f);
                assertThat(api.getPhi(1)).as(text).isEqualTo(3.0);
            }
        }
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse("dense(i,4).place(f32 phi, f32 Phi)"))) {
            assertThatThrownBy(() -> rt.accessor(CaseOnlyAmbiguous.class)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("field phi").hasMessageContaining("field Phi");
        }
    }

    public interface RootGetV {
        float getV();

        void setGetV(float value);

        float v(int i);
    }

    public interface VisitedV {
        float getV();

        float v(int i);
    }

    /**
     * Outside a view no cell is visited, so a coordinate-free {@code getV()} can only be the read
     * of a root field {@code getV}: it binds there, even beside a field {@code v}, whose
     * visited-cell read has the same form (it was refused as ambiguous until 12-06). In a view
     * over {@code v}'s SNode both fit, and the view refuses it naming the names that tell them
     * apart.
     */
    @Test
    void aCoordinateFreeFormBindsToTheRootFieldOutsideViews() {
        try (SNodeRuntime rt = SNodeRuntime.compile(Layout.parse("place(f32 getV); pointer(i,4).dense(i,8).place(f32 v)"))) {
            for (RootGetV api : List.of(rt.bind(RootGetV.class), rt.accessor(RootGetV.class))) {
                api.setGetV(2.5f);
                assertThat(api.getV()).isEqualTo(2.5f);
                assertThat(rt.generic().getFloat("getV")).isEqualTo(2.5f);
                assertThat(api.v(3)).isZero();
            }
            rt.generic().setFloat("v", 1f, 3);
            io.snode.api.SNode dense = rt.layout().field("v").snode();
            assertThatThrownBy(() -> rt.forEach(dense, VisitedV.class,
                    (io.snode.codegen.kernel.ViewKernel1<VisitedV>) (view, i) -> view.getV()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("field v").hasMessageContaining("field getV");
        }
    }

    @Test
    void boundMethodsReachTheGeneratedCode() {
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            Grid grid = rt.bind(Grid.class);
            grid.phi(100, 200, 300, 1.5f);
            assertThat(grid.phi(100, 200, 300)).isEqualTo(1.5f);
            assertThat(grid.addPhi(100, 200, 300, 1f)).isEqualTo(1.5f);
            assertThat(grid.twicePhi(100, 200, 300)).isEqualTo(5f);
            grid.setCount(1, 2, 3, 42L);
            assertThat(grid.getCount(1, 2, 3)).isEqualTo(42L);
            assertThat(grid.appendParticle(12, 25, 37, 7)).isZero();
            assertThat(grid.appendParticle(12, 25, 37, 8)).isEqualTo(1);
            assertThat(grid.particle(12, 25, 37, 1)).isEqualTo(8);
            grid.time(0.25);
            assertThat(grid.time()).isEqualTo(0.25);
            assertThat(rt.generic().getFloat("phi", 100, 200, 300)).isEqualTo(2.5f);
        }
    }

    @Test
    void mismatchesAreReportedAtBindTime() {
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            assertThatThrownBy(() -> rt.bind(WrongArity.class)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("WrongArity.phi").hasMessageContaining("3 coordinates")
                    .hasMessageContaining("float phi(int i, int j, int k)");
            assertThatThrownBy(() -> rt.bind(WrongType.class)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("field phi is f32");
            assertThatThrownBy(() -> rt.bind(UnknownField.class)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("no field").hasMessageContaining("time, phi, count, particle");
            assertThatThrownBy(() -> rt.bind(NotPublic.class)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("must be a public interface");
        }
    }

    @Test
    void objectsPublicMethodsDeclaredInTheInterfaceAreObjects() {
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            for (WithObjectMethods grid : List.of(rt.bind(WithObjectMethods.class), rt.accessor(WithObjectMethods.class))) {
                grid.phi(3, 4, 5, 2.5f);
                assertThat(grid.phi(3, 4, 5)).isEqualTo(2.5f);
                assertThat(grid.equals(grid)).isTrue();
                assertThat(grid.equals(rt.accessor(WithObjectMethods.class))).isFalse();
                assertThat(grid.hashCode()).isEqualTo(System.identityHashCode(grid));
                assertThat(grid.toString()).isNotBlank();
            }
            SNode leaf = LAYOUT.fields().stream().filter(f -> f.name().equals("phi")).findFirst().orElseThrow().snode();
            rt.forEach(leaf, WithObjectMethods.class, (ViewKernel3<WithObjectMethods>) (view, i, j, k) -> {
                if (view.equals(view)) {
                    view.phi(i, j, k, view.phi(i, j, k) + 1);
                }
            });
            assertThat(rt.bind(WithObjectMethods.class).phi(3, 4, 5)).isEqualTo(3.5f);
        }
    }

    @Test
    void aWrongAppendIsToldTheAppendsForm() {
        try (SNodeRuntime rt = SNodeRuntime.compile(LAYOUT)) {
            for (Class<?> api : new Class<?>[] {VoidAppend.class, AppendWithElementCoordinates.class}) {
                assertThatThrownBy(() -> rt.bind(api)).as(api.getSimpleName()).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(api.getSimpleName() + ".appendParticle")
                        .hasMessageContaining("long appendParticle(int i, int j, int k, int value)")
                        .hasMessageContaining("int particle(int i, int j, int k, int l)");
                assertThatThrownBy(() -> rt.accessor(api)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("long appendParticle(int i, int j, int k, int value)");
            }
            assertThatThrownBy(() -> rt.bind(WrongType.class)).as("a field outside a list has no append")
                    .hasMessageNotContaining("append");
        }
    }
}
