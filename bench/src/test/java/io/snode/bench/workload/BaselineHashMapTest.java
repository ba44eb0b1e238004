package io.snode.bench.workload;

import java.util.EnumSet;
import java.util.Set;

class BaselineHashMapTest extends ContenderContract {
    @Override
    Contender contender() {
        return new BaselineHashMap();
    }

    @Override
    Set<Workload> workloads() {
        return EnumSet.allOf(Workload.class);
    }
}
