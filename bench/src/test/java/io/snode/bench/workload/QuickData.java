package io.snode.bench.workload;

/** The quick band's data set, built once per test JVM and shared by the test classes that run workloads. */
final class QuickData {
    private static DataSet data;

    private QuickData() {
    }

    static synchronized DataSet get() {
        if (data == null) {
            data = DataSet.quick();
        }
        return data;
    }
}
