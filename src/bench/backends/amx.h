// The AMX peak kernels' plan, shared by the hardware kernels
// (cpu_peak_x86.cpp, run only where cpuid, XCR0 and Linux's permission say
// AMX is usable) and a scalar emulation of the same instructions
// (amx_emulate.cpp, portable C++), so the tile configuration, the data
// layout and the checksum are exercised on every machine, AMX or not.
//
// The kernel: tiles 4, 5 hold A (16 rows x 64 bytes), tiles 6, 7 hold B in
// the VNNI layout (16 rows x 64 bytes), and four accumulator tiles
// C[i][j] (0..3, 16 x 16 32-bit) take C[i][j] += A[i] x B[j] every
// iteration: tdpbf16ps (K = 32 bf16 pairs) or tdpbssd (K = 64 int8).
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace rooftop::bench::cpu {

// The 64-byte operand of ldtilecfg (Intel SDM vol. 1, 3.2.1 "Tile
// configuration"): palette 1 has 8 tiles of at most 16 rows x 64 bytes.
struct alignas(64) TileConfig {
  std::uint8_t palette_id = 1;
  std::uint8_t start_row = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t colsb[16] = {};
  std::uint8_t rows[16] = {};
};
static_assert(sizeof(TileConfig) == 64);

enum class AmxType { bf16, int8 };  // tdpbf16ps (fp32 += bf16 x bf16), tdpbssd (s32 += s8 x s8)

struct TileOp {
  int c, a, b;  // destination (accumulator), first and second source tile
};
// The loop body, in issue order; the hardware kernels use these as immediates.
inline constexpr std::array<TileOp, 4> kAmxOps = {{{0, 4, 6}, {1, 4, 7}, {2, 5, 6}, {3, 5, 7}}};
inline constexpr int kAmxInputTiles[4] = {4, 5, 6, 7};
inline constexpr int kAmxTileBytes = 16 * 64;

// The kernel's configuration: tiles 0..7 at 16 rows x 64 bytes.
TileConfig amx_kernel_config();
// Every input tile's contents: all ones (bf16 1.0 = 0x3f80, or int8 1).
std::array<std::uint8_t, kAmxTileBytes> amx_kernel_input(AmxType t);
// The checksum of the four accumulator tiles as stored (row stride 64):
// the sum of their 1024 fp32 (bf16) or uint32-wrapped int32 (int8) elements.
double amx_checksum(const std::uint8_t (&acc)[4][kAmxTileBytes], AmxType t);

// "" when ldtilecfg accepts `cfg` (palette 0 or 1, at most 16 rows and 64
// bytes per row for tiles 0..7, tiles 8..15 and reserved bytes zero), else
// why it raises #GP.
std::string check_tile_config(const TileConfig& cfg);
// "" when `op` is legal for `cfg` (SDM TDPBF16PS/TDPBSSD: every tile
// configured, C.rows == A.rows, C.colsb == B.colsb, A.colsb == 4 x B.rows,
// columns multiples of 4), else why it raises #UD.
std::string check_tile_op(const TileConfig& cfg, TileOp op);

// The register file of the scalar emulation.
struct TileFile {
  TileConfig cfg;
  std::uint8_t tile[8][kAmxTileBytes] = {};
};
// One tdpbf16ps / tdpbssd on the emulated tiles (checks as above first;
// returns the error instead of computing on a bad configuration).
std::string emulate_tile_op(TileFile& f, TileOp op, AmxType t);
// The whole peak kernel on the scalar path: configure, load the inputs,
// zero the accumulators, run `iters` loop bodies, store and checksum. The
// same value the hardware kernel returns (verified against the kernel's
// reference in the unit tests on every CPU).
double amx_emulate_kernel(AmxType t, std::uint64_t iters);

}  // namespace rooftop::bench::cpu
