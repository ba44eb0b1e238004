/**
 * Reference data sets: the narrow band of {@code WORKLOADS.md} (a spherical shell of signed
 * distances, sorted and shuffled) and the splitmix64 generator that defines its shuffle, shared by
 * the library's tests, the {@code ./snode} command line and the benchmarks, so that every one of
 * them writes, exports and checks the same voxels.
 */
package io.snode.codegen.samples;
