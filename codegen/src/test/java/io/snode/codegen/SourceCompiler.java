package io.snode.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/** Compiles test sources at test time (interfaces of other class loaders and modules) into a directory. */
final class SourceCompiler {
    private SourceCompiler() {
    }

    /** Compiles {@code sources} into {@code bin}, failing the test with javac's messages where they do not compile. */
    static void compile(Path bin, Path... sources) {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StringWriter errors = new StringWriter();
        boolean compiled = compiler.getTask(errors, null, null, List.of("-d", bin.toString()), null,
                compiler.getStandardFileManager(null, null, null).getJavaFileObjects(sources)).call();
        assertThat(compiled).as(errors.toString()).isTrue();
    }
}
