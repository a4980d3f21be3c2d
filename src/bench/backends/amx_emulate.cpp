// Scalar emulation of the AMX peak kernels (see amx.h). Semantics follow
// the Intel SDM pseudocode of LDTILECFG, TDPBF16PS and TDPBSSD.
#include <cstring>

#include "bench/backends/amx.h"

namespace rooftop::bench::cpu {

namespace {

float bf16_to_float(std::uint16_t v) {
  std::uint32_t bits = static_cast<std::uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

template <typename T>
T load(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T>
void store(std::uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

}  // namespace

TileConfig amx_kernel_config() {
  TileConfig cfg;
  for (int t = 0; t < 8; ++t) {
    cfg.rows[t] = 16;
    cfg.colsb[t] = 64;
  }
  return cfg;
}

std::array<std::uint8_t, kAmxTileBytes> amx_kernel_input(AmxType t) {
  std::array<std::uint8_t, kAmxTileBytes> out{};
  for (std::size_t i = 0; i < out.size(); i += 2) {
    if (t == AmxType::bf16) store<std::uint16_t>(out.data() + i, 0x3f80);  // bf16 1.0
    else out[i] = out[i + 1] = 1;
  }
  return out;
}

double amx_checksum(const std::uint8_t (&acc)[4][kAmxTileBytes], AmxType t) {
  double s = 0;
  for (const auto& tile : acc)
    for (int i = 0; i < kAmxTileBytes; i += 4)
      s += t == AmxType::bf16 ? static_cast<double>(load<float>(tile + i)) : static_cast<double>(load<std::uint32_t>(tile + i));
  return s;
}

std::string check_tile_config(const TileConfig& cfg) {
  if (cfg.palette_id > 1) return "palette " + std::to_string(cfg.palette_id) + " is not supported (0 or 1)";
  for (std::uint8_t r : cfg.reserved)
    if (r != 0) return "reserved bytes must be zero";
  for (int t = 0; t < 16; ++t) {
    if (t >= 8) {
      if (cfg.rows[t] || cfg.colsb[t]) return "tile " + std::to_string(t) + " does not exist in palette 1";
      continue;
    }
    if (cfg.palette_id == 0 && (cfg.rows[t] || cfg.colsb[t])) return "palette 0 configures no tile";
    if (cfg.rows[t] > 16) return "tile " + std::to_string(t) + " has " + std::to_string(cfg.rows[t]) + " rows (at most 16)";
    if (cfg.colsb[t] > 64)
      return "tile " + std::to_string(t) + " has " + std::to_string(cfg.colsb[t]) + " bytes per row (at most 64)";
    if ((cfg.rows[t] == 0) != (cfg.colsb[t] == 0)) return "tile " + std::to_string(t) + " has rows or columns but not both";
  }
  return "";
}

std::string check_tile_op(const TileConfig& cfg, TileOp op) {
  if (auto e = check_tile_config(cfg); !e.empty()) return e;
  for (int t : {op.c, op.a, op.b}) {
    if (t < 0 || t >= 8) return "tile " + std::to_string(t) + " does not exist";
    if (cfg.rows[t] == 0) return "tile " + std::to_string(t) + " is not configured";
  }
  if (op.c == op.a || op.c == op.b || op.a == op.b) return "the three tiles must differ";
  auto name = [](int t) { return "tile " + std::to_string(t); };
  if (cfg.rows[op.c] != cfg.rows[op.a]) return name(op.c) + " and " + name(op.a) + " differ in rows";
  if (cfg.colsb[op.c] != cfg.colsb[op.b]) return name(op.c) + " and " + name(op.b) + " differ in bytes per row";
  if (cfg.colsb[op.a] != 4 * cfg.rows[op.b]) return name(op.a) + "'s bytes per row are not 4 x " + name(op.b) + "'s rows";
  for (int t : {op.c, op.a, op.b})
    if (cfg.colsb[t] % 4) return name(t) + "'s bytes per row are not a multiple of 4";
  return "";
}

std::string emulate_tile_op(TileFile& f, TileOp op, AmxType t) {
  if (auto e = check_tile_op(f.cfg, op); !e.empty()) return e;
  const int m_rows = f.cfg.rows[op.c], n_cols = f.cfg.colsb[op.c] / 4, k_rows = f.cfg.rows[op.b];
  const std::uint8_t* a = f.tile[op.a];
  const std::uint8_t* b = f.tile[op.b];
  std::uint8_t* c = f.tile[op.c];
  for (int m = 0; m < m_rows; ++m) {
    for (int n = 0; n < n_cols; ++n) {
      std::uint8_t* dst = c + 64 * m + 4 * n;
      if (t == AmxType::bf16) {
        // Each row k of B holds the pairs (B[2k][n], B[2k+1][n]) for every n.
        float acc = load<float>(dst);
        for (int k = 0; k < k_rows; ++k) {
          for (int p = 0; p < 2; ++p) {
            float x = bf16_to_float(load<std::uint16_t>(a + 64 * m + 4 * k + 2 * p));
            float y = bf16_to_float(load<std::uint16_t>(b + 64 * k + 4 * n + 2 * p));
            acc += x * y;
          }
        }
        store(dst, acc);
      } else {
        // Each row k of B holds the quadruples B[4k..4k+3][n]; int32 wraps.
        std::uint32_t acc = load<std::uint32_t>(dst);
        for (int k = 0; k < k_rows; ++k)
          for (int p = 0; p < 4; ++p) {
            auto x = static_cast<std::int8_t>(a[64 * m + 4 * k + p]);
            auto y = static_cast<std::int8_t>(b[64 * k + 4 * n + p]);
            acc += static_cast<std::uint32_t>(static_cast<std::int32_t>(x) * y);
          }
        store(dst, acc);
      }
    }
  }
  return "";
}

double amx_emulate_kernel(AmxType t, std::uint64_t iters) {
  TileFile f;
  f.cfg = amx_kernel_config();
  if (!check_tile_config(f.cfg).empty()) return -1;
  auto input = amx_kernel_input(t);
  for (int tile : kAmxInputTiles) std::memcpy(f.tile[tile], input.data(), input.size());
  for (std::uint64_t i = 0; i < iters; ++i)
    for (const TileOp& op : kAmxOps)
      if (!emulate_tile_op(f, op, t).empty()) return -1;
  std::uint8_t acc[4][kAmxTileBytes];
  for (int i = 0; i < 4; ++i) std::memcpy(acc[i], f.tile[kAmxOps[static_cast<std::size_t>(i)].c], kAmxTileBytes);
  return amx_checksum(acc, t);
}

}  // namespace rooftop::bench::cpu
