package io.snode.jcstress;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Runs jcstress ({@code org.openjdk.jcstress.Main}) over this suite: every argument is passed
 * on ({@code -m sanity|quick|default}, {@code -t REGEX}, {@code -r DIR}, ...; {@code -h} lists
 * them). Without {@code -t}, only this suite's tests run; the forked VMs get
 * {@code --enable-native-access=ALL-UNNAMED} unless {@code -jvmArgs} or
 * {@code -jvmArgsPrepend} is given.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        List<String> all = new ArrayList<>(Arrays.asList(args));
        if (!all.contains("-t")) {
            all.add("-t");
            all.add("io\\.snode\\.jcstress\\..*");
        }
        if (!all.contains("-jvmArgs") && !all.contains("-jvmArgsPrepend")) {
            all.add("-jvmArgsPrepend");
            all.add("--enable-native-access=ALL-UNNAMED");
        }
        org.openjdk.jcstress.Main.main(all.toArray(String[]::new));
    }
}
