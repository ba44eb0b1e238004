// Writes the .vdb files that OpenVdbInteropTest reads with our reader (own code, written for
// this project; built by the test with g++ -std=c++17 -O1 ... -lopenvdb -ltbb -lImath-3_1).
//
//   write_shell DIR
//
// DIR/shell.vdb, shell_zip.vdb, shell_raw.vdb: the WORKLOADS.md shell as grid "phi" (FloatGrid,
//     background 0), with io::File's default compression (blosc + active mask), zip + active mask,
//     and none, as ../shared/peers/openvdb/bench.cpp writes them.
// DIR/mixed.vdb, mixed_zip.vdb, mixed_raw.vdb: grids "vec" (Vec3SGrid), "tiles" (FloatGrid with
//     tiles at all three levels and leaves in every mask-compression mode), "dbl" (DoubleGrid,
//     voxel size 0.25, translation (1,2,3)) and "inst" (an instance of "tiles").
// DIR/half.vdb: grid "h", a FloatGrid saved as half floats.
// DIR/expect.txt: per grid of mixed.vdb, what our reader must find (tiles, leaves, counts).
#include <openvdb/openvdb.h>
#include <openvdb/io/File.h>

#include <cstdio>
#include <cmath>
#include <string>

using namespace openvdb;

static FloatGrid::Ptr shell() {
    FloatGrid::Ptr g = FloatGrid::create(0.0f);
    g->setName("phi");
    FloatGrid::Accessor acc = g->getAccessor();
    for (int i = 1024 - 402; i <= 1024 + 402; ++i)
        for (int j = 1024 - 402; j <= 1024 + 402; ++j)
            for (int k = 1024 - 402; k <= 1024 + 402; ++k) {
                const int di = i - 1024, dj = j - 1024, dk = k - 1024;
                const int d2 = di * di + dj * dj + dk * dk;
                if (d2 >= 398 * 398 && d2 < 402 * 402)
                    acc.setValue(Coord(i, j, k), float(std::sqrt(double(d2)) - 400.0));
            }
    return g;
}

// Leaf at origin o (a multiple of 8): every voxel inactive with value inactive(n), then the voxels
// n % 5 == 0 active with value n * 0.125.
template<typename F>
static void modeLeaf(FloatGrid& g, const Coord& o, F inactive) {
    FloatGrid::Accessor acc = g.getAccessor();
    for (int n = 0; n < 512; ++n) {
        const Coord c = o + Coord(n >> 6, (n >> 3) & 7, n & 7);
        acc.setValueOff(c, inactive(n));
    }
    for (int n = 0; n < 512; n += 5) acc.setValueOn(o + Coord(n >> 6, (n >> 3) & 7, n & 7), float(n) * 0.125f);
}

static FloatGrid::Ptr tiles() {
    const float bg = 0.5f;
    FloatGrid::Ptr g = FloatGrid::create(bg);
    g->setName("tiles");
    g->tree().fill(CoordBBox(Coord(-4096), Coord(-1)), 2.0f, true);                    // root tile
    g->tree().fill(CoordBBox(Coord(4096 + 128, 0, 0), Coord(4096 + 255, 127, 127)), 3.0f, true); // edge 128
    g->tree().fill(CoordBBox(Coord(8, 8, 8), Coord(15, 15, 15)), 4.0f, true);        // edge 8
    g->tree().fill(CoordBBox(Coord(16, 0, 0), Coord(23, 7, 7)), 5.0f, false);        // edge 8, inactive
    g->tree().fill(CoordBBox(Coord(0, 4096, 0), Coord(127, 4096 + 127, 127)), -6.0f, false); // edge 128, inactive
    g->tree().setValue(Coord(1, 2, 3), 1.25f);
    g->tree().setValue(Coord(-5000, 7, 9), -1.5f);
    modeLeaf(*g, Coord(1000, 1000, 1000), [&](int) { return bg; });                        // mode 0
    modeLeaf(*g, Coord(1008, 1000, 1000), [&](int) { return -bg; });                       // mode 1
    modeLeaf(*g, Coord(1016, 1000, 1000), [&](int) { return 7.0f; });                      // mode 2
    modeLeaf(*g, Coord(1024, 1000, 1000), [&](int n) { return n & 1 ? -bg : bg; });       // mode 3
    modeLeaf(*g, Coord(1032, 1000, 1000), [&](int n) { return n & 1 ? 7.0f : bg; });      // mode 4
    modeLeaf(*g, Coord(1040, 1000, 1000), [&](int n) { return n & 1 ? 7.0f : 8.0f; });    // mode 5
    modeLeaf(*g, Coord(1048, 1000, 1000), [&](int n) { return float(n % 3) + 7.0f; });   // mode 6
    return g;
}

static DoubleGrid::Ptr dbl() {
    DoubleGrid::Ptr g = DoubleGrid::create(-1.0);
    g->setName("dbl");
    g->setTransform(math::Transform::createLinearTransform(0.25));
    g->transform().postTranslate(Vec3d(1, 2, 3));
    DoubleGrid::Accessor acc = g->getAccessor();
    uint64_t s = 12345;
    for (int n = 0; n < 3000; ++n) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        const int x = int((s >> 16) % 601) - 300, y = int((s >> 32) % 601) - 300, z = int((s >> 48) % 601) - 300;
        acc.setValue(Coord(x, y, z), std::sqrt(double(n)) + 1e-9 * n);
    }
    return g;
}

template<typename GridT>
static void expect(FILE* f, const GridT& g) {
    using ValueT = typename GridT::ValueType;
    const ValueT bg = g.background();
    std::fprintf(f, "grid %s %.17g\n", g.getName().c_str(), double(bg));
    for (auto it = g.tree().cbeginValueAll(); it; ++it) {
        if (!it.isTileValue()) continue;
        if (!it.isValueOn() && *it == bg) continue;
        const CoordBBox b = it.getBoundingBox();
        std::fprintf(f, "tile %d %d %d %d %.17g %d\n", b.min().x(), b.min().y(), b.min().z(), b.dim().x(),
                     double(*it), int(it.isValueOn()));
    }
    for (auto leaf = g.tree().cbeginLeaf(); leaf; ++leaf) {
        double all = 0, on = 0;
        for (Index n = 0; n < 512; ++n) {
            all += double(leaf->getValue(n));
            if (leaf->isValueOn(n)) on += double(leaf->getValue(n));
        }
        const Coord o = leaf->origin();
        std::fprintf(f, "leaf %d %d %d %u %.17g %.17g\n", o.x(), o.y(), o.z(), unsigned(leaf->onVoxelCount()), all, on);
    }
    const CoordBBox b = g.evalActiveVoxelBoundingBox();
    std::fprintf(f, "count %llu\nbbox %d %d %d %d %d %d\n", (unsigned long long)g.activeVoxelCount(),
                 b.min().x(), b.min().y(), b.min().z(), b.max().x(), b.max().y(), b.max().z());
}

static void write(const std::string& path, const GridPtrVec& grids, uint32_t compression) {
    io::File file(path);
    file.setCompression(compression);
    file.write(grids);
    file.close();
}

int main(int argc, char** argv) {
    if (argc != 2) { std::fprintf(stderr, "usage: write_shell DIR\n"); return 2; }
    initialize();
    const std::string dir(argv[1]);
    const uint32_t zip = io::COMPRESS_ZIP | io::COMPRESS_ACTIVE_MASK;

    FloatGrid::Ptr phi = shell();
    write(dir + "/shell.vdb", {phi}, io::File::DEFAULT_COMPRESSION_FLAGS);
    write(dir + "/shell_zip.vdb", {phi}, zip);
    write(dir + "/shell_raw.vdb", {phi}, io::COMPRESS_NONE);

    Vec3SGrid::Ptr vec = Vec3SGrid::create(Vec3s(0));
    vec->setName("vec");
    vec->tree().setValue(Coord(1, 2, 3), Vec3s(1, 2, 3));
    FloatGrid::Ptr t = tiles();
    DoubleGrid::Ptr d = dbl();
    FloatGrid::Ptr inst = t->copy();  // shares the tree: written as an instance of "tiles"
    inst->setName("inst");
    const GridPtrVec mixed{vec, t, d, inst};
    write(dir + "/mixed.vdb", mixed, io::File::DEFAULT_COMPRESSION_FLAGS);
    write(dir + "/mixed_zip.vdb", mixed, zip);
    write(dir + "/mixed_raw.vdb", mixed, io::COMPRESS_NONE);

    FloatGrid::Ptr h = FloatGrid::create(0.0f);
    h->setName("h");
    h->tree().setValue(Coord(1, 2, 3), 0.5f);
    h->setSaveFloatAsHalf(true);
    write(dir + "/half.vdb", {h}, io::File::DEFAULT_COMPRESSION_FLAGS);

    FILE* f = std::fopen((dir + "/expect.txt.tmp").c_str(), "w");
    if (!f) return 1;
    expect(f, *t);
    expect(f, *d);
    std::fclose(f);
    std::rename((dir + "/expect.txt.tmp").c_str(), (dir + "/expect.txt").c_str());
    return 0;
}
