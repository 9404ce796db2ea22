// SPDX-License-Identifier: Apache-2.0
// What the static placement check must catch: a context with a destructor and a non-zero
// initializer as a plain global (the ChaCha20Drbg of before #17 item 3: .data, and a destructor
// registered with atexit under -fno-use-cxa-atexit).
#include <stdint.h>

struct WipedOnDestruction {
  ~WipedOnDestruction() {
    volatile uint32_t* k = key;
    for (int i = 0; i < 8; ++i) k[i] = 0;
  }
  uint32_t key[8] = {};
  uint64_t interval = uint64_t{1} << 24;
};

WipedOnDestruction drbg;

// Bare-metal images link no C library on every target: a registration call would land here.
extern "C" int atexit(void (*)(void)) { return 0; }

int main() { return static_cast<int>(drbg.key[0]); }
