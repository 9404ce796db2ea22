// SPDX-License-Identifier: Apache-2.0
// tinyldp/endian.hpp — little-endian loads and stores of whole words from byte buffers.
//
// Reports and random streams are defined byte by byte, least significant first, so results
// are identical on every architecture (big-endian ones too: the ppc32-linux preset). On
// little-endian machines these compile to one load or store (unaligned-safe: the compiler picks byte accesses where
// the core cannot load unaligned words, e.g. Cortex-M0).
#ifndef TINYLDP_ENDIAN_HPP
#define TINYLDP_ENDIAN_HPP

#include <stddef.h>
#include <stdint.h>

namespace tinyldp {

template <class Word>
inline Word load_le(const uint8_t* p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  Word w;
  __builtin_memcpy(&w, p, sizeof w);
  return w;
#else
  Word w = 0;
  for (size_t i = 0; i < sizeof(Word); ++i) w |= static_cast<Word>(Word{p[i]} << (8 * i));
  return w;
#endif
}

template <class Word>
inline void store_le(uint8_t* p, Word w) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  __builtin_memcpy(p, &w, sizeof w);
#else
  for (size_t i = 0; i < sizeof(Word); ++i) p[i] = static_cast<uint8_t>(w >> (8 * i));
#endif
}

// The byte-wise little-endian codec every format uses (wire reports, storage records, aggregate
// states, report files): the low `bytes` bytes of v, least significant first. constexpr, any
// width up to sizeof(T); shifts are T's width (use uint32_t on 32-bit cores where 32 bits do).
template <class T>
constexpr void put_le(uint8_t* p, T v, size_t bytes = sizeof(T)) {
  for (size_t i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
template <class T>
constexpr T get_le(const uint8_t* p, size_t bytes = sizeof(T)) {
  T v = 0;
  for (size_t i = 0; i < bytes; ++i) v = static_cast<T>(v | static_cast<T>(T{p[i]} << (8 * i)));
  return v;
}

// A word's value as little-endian memory holds it, read as a native word (and the way back):
// the identity on little-endian machines, a byte swap on big-endian ones. For buffers that are
// filled as words but handed out as bytes.
template <class Word>
constexpr Word le_native(Word w) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  Word r = 0;
  for (size_t i = 0; i < sizeof(Word); ++i) r = static_cast<Word>((r << 8) | ((w >> (8 * i)) & 0xFFu));
  return r;
#else
  return w;
#endif
}

}  // namespace tinyldp

#endif
