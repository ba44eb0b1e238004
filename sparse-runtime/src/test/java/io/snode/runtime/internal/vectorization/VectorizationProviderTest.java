package io.snode.runtime.internal.vectorization;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Runs in both Surefire executions: {@code snode.test.expectVector} says whether this JVM was
 * started with {@code jdk.incubator.vector}, so each execution proves it ran the configuration
 * it claims, and that the provider chose accordingly.
 */
class VectorizationProviderTest {

    private static final boolean EXPECT_VECTOR = Boolean.parseBoolean(
            System.getProperty("snode.test.expectVector", "true"));

    @Test
    void theModuleGraphIsTheOneThisExecutionClaims() {
        assertThat(ModuleLayer.boot().findModule(VectorizationProvider.VECTOR_MODULE).isPresent())
                .isEqualTo(EXPECT_VECTOR);
    }

    @Test
    void theProviderIsVectorExactlyWhenTheModuleIsPresentAndNeverChanges() {
        VectorizationProvider provider = VectorizationProvider.getInstance();
        assertThat(provider.vectorized()).isEqualTo(EXPECT_VECTOR);
        assertThat(provider.name()).startsWith(EXPECT_VECTOR ? "panama-" : "scalar");
        assertThat(VectorizationProvider.getInstance()).isSameAs(provider);
        assertThat(VectorizationProvider.vectorUnavailableReason().isEmpty()).isEqualTo(EXPECT_VECTOR);
        assertThat(VectorizationProvider.vector().isPresent()).isEqualTo(EXPECT_VECTOR);
        // The kernel families come from the same choice.
        assertThat(provider.gcKernels().vectorized()).isEqualTo(EXPECT_VECTOR);
        assertThat(provider.scanKernels().lanes() > 1).isEqualTo(EXPECT_VECTOR);
        assertThat(provider.gcKernels().name()).isEqualTo(provider.name());
        assertThat(provider.scanKernels().name()).isEqualTo(provider.name());
        if (EXPECT_VECTOR) {
            // Vector reductions wherever the CPU's vectors hold four doubles, else the scalar ones.
            assertThat(provider.reductionKernels().vectorized()).isEqualTo(PanamaReductionKernels.supported());
        } else {
            assertThat(provider).isSameAs(VectorizationProvider.scalar());
            assertThat(provider.reductionKernels().vectorized()).isFalse();
        }
    }

    @Test
    void theScalarProviderHandsOutTheScalarTwins() {
        VectorizationProvider scalar = VectorizationProvider.scalar();
        assertThat(scalar.vectorized()).isFalse();
        assertThat(scalar.gcKernels()).isSameAs(ScalarGcKernels.INSTANCE);
        assertThat(scalar.scanKernels()).isSameAs(ScalarScanKernels.INSTANCE);
        assertThat(scalar.reductionKernels()).isSameAs(ScalarReductionKernels.INSTANCE);
    }

    @Test
    void detectionWarnsOnceWithTheFlagToAddExactlyWhenTheModuleIsMissing() {
        List<String> warnings = new ArrayList<>();
        VectorizationProvider.Detection d = VectorizationProvider.detect(warnings::add);
        if (EXPECT_VECTOR) {
            assertThat(warnings).isEmpty();
            assertThat(d.provider().vectorized()).isTrue();
            assertThat(d.unavailableReason()).isEmpty();
        } else {
            assertThat(warnings).hasSize(1);
            assertThat(warnings.getFirst()).contains("--add-modules jdk.incubator.vector")
                    .contains("not in the module graph")
                    .isEqualTo(VectorizationProvider.warning(d.unavailableReason().orElseThrow()));
            assertThat(d.provider()).isSameAs(VectorizationProvider.scalar());
        }
    }

    @Test
    void theWarningIsOneLineThatNamesTheFlag() {
        String warning = VectorizationProvider.warning("module jdk.incubator.vector is not in the module graph");
        assertThat(warning).doesNotContain("\n")
                .startsWith("SNode runs without the Vector API")
                .contains("'--add-modules jdk.incubator.vector'");
    }
}
