package io.snode.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What every module's test run relies on: a jqwik engine that prints nothing but its results,
 * and jqwik configured to report a property only when it fails, so a green build stays short.
 */
class TestSetupTest {
    private static final String ONLY_FAILURES = "jqwik.reporting.onlyfailures";

    @Test
    void jqwikReportsPropertiesOnlyWhenTheyFail() throws IOException {
        Properties properties = new Properties();
        try (InputStream in = TestSetupTest.class.getResourceAsStream("/junit-platform.properties")) {
            assertThat(in).as("junit-platform.properties on the test class path").isNotNull();
            properties.load(in);
        }
        assertThat(properties.getProperty(ONLY_FAILURES)).isEqualTo("true");
    }

    @Test
    void everyModuleThatTestsConfiguresJqwikTheSameWay() throws IOException {
        Path project = Path.of("..").toAbsolutePath().normalize();
        List<Path> modules;
        try (Stream<Path> children = Files.list(project)) {
            modules = children.filter(module -> Files.isDirectory(module.resolve("src/test/java"))
                    && Files.isRegularFile(module.resolve("pom.xml"))).toList();
        }
        assertThat(modules).extracting(module -> module.getFileName().toString()).contains("api", "codegen");
        for (Path module : modules) {
            Path file = module.resolve("src/test/resources/junit-platform.properties");
            assertThat(file).as("%s", module.getFileName()).isRegularFile();
            Properties properties = new Properties();
            try (InputStream in = Files.newInputStream(file)) {
                properties.load(in);
            }
            assertThat(properties.getProperty(ONLY_FAILURES)).as("%s", file).isEqualTo("true");
        }
    }

    @Test
    void theJqwikEnginePrintsNoNoticeIntoTheTestRun() throws IOException {
        // jqwik 1.10 prints a notice from its executor into every run; 1.9.3 does not.
        try (InputStream in = TestSetupTest.class.getResourceAsStream("/net/jqwik/engine/execution/JqwikExecutor.class")) {
            assertThat(in).as("the jqwik engine on the test class path").isNotNull();
            String constants = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(constants).doesNotContain("AI Agent", "printMessageForCodingAgents");
        }
    }
}
