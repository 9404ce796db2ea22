// SPDX-License-Identifier: Apache-2.0
// Register-level models of the RNG peripherals for host (and any-target) tests of the
// register-level backends: the backend's Bus reads and writes these instead of MMIO.
// Behaviour follows the vendors' reference manuals as far as the backends rely on it, plus
// fault injection (dead peripheral, seed error, clock error, zero words).
#ifndef TINYLDP_TESTS_PORT_REGISTER_MODELS_HPP
#define TINYLDP_TESTS_PORT_REGISTER_MODELS_HPP

#include <stdint.h>

#include "tinyldp/port/test/insecure_test_source.hpp"
#include "tinyldp/port/entropy/nrf51_rng.hpp"
#include "tinyldp/port/entropy/stm32_rng.hpp"

namespace tinyldp::test {

// The register bus a driver is built on, onto a model: its reads and writes go to the model.
template <class Model>
struct ModelBus {
  Model* model;
  uint32_t read(uint32_t offset) { return model->read(offset); }
  void write(uint32_t offset, uint32_t v) { model->write(offset, v); }
};

// nRF51 RNG: after TASKS_START a new byte appears in VALUE (and EVENTS_VALRDY = 1) once the
// event register has been polled `latency` times since the last value.
struct Nrf51Model {
  uint32_t config = 0;
  uint32_t valrdy = 0;
  uint32_t value = 0;
  uint32_t latency = 3;
  uint32_t polls = 0;
  uint32_t starts = 0;
  uint64_t values_produced = 0;
  bool running = false;
  bool dead = false;  // fault: never produces another value
  port::InsecureTestSource noise{0x6e7266};

  uint32_t read(uint32_t offset) {
    using namespace port::nrf51_rng;
    if (offset == events_valrdy) {
      if (running && !dead && valrdy == 0 && ++polls >= latency) {
        uint8_t b = 0;
        static_cast<void>(noise.fill(&b, 1, 0));  // the model's noise source cannot fail
        value = b;
        valrdy = 1;
        polls = 0;
        ++values_produced;
      }
      return valrdy;
    }
    if (offset == port::nrf51_rng::value) return value;
    if (offset == port::nrf51_rng::config) return config;
    return 0;
  }
  void write(uint32_t offset, uint32_t v) {
    using namespace port::nrf51_rng;
    if (offset == tasks_start && v != 0) {
      running = true;
      ++starts;
    } else if (offset == tasks_stop && v != 0) {
      running = false;
    } else if (offset == events_valrdy) {
      valrdy = v;
    } else if (offset == port::nrf51_rng::config) {
      config = v;
    }
  }
};

using Nrf51ModelBus = ModelBus<Nrf51Model>;

// STM32 RNG: while CR.RNGEN is set, DR holds a fresh word (SR.DRDY = 1) once SR has been
// polled `latency` times since the last DR read. Faults: a seed or clock error raised after
// a given number of words (SECS/CECS and the sticky SEIS/CEIS), cleared by the recovery
// sequence only if `transient`; words of zero.
struct Stm32Model {
  uint32_t cr = 0;
  uint32_t sr = 0;
  uint32_t dr = 0;
  uint32_t latency = 2;
  uint32_t polls = 0;
  uint64_t words = 0;
  uint64_t seed_error_at = 0;   // raise SECS when this many words have been read (0: never)
  uint64_t clock_error_at = 0;  // raise CECS likewise
  bool transient = true;        // an error clears on RNGEN 0 -> 1
  bool zero_words = false;
  bool never_ready = false;
  port::InsecureTestSource noise{0x73746d};

  uint32_t read(uint32_t offset) {
    using namespace port::stm32_rng;
    if (offset == port::stm32_rng::sr) {
      if ((cr & cr_rngen) != 0 && (sr & (sr_secs | sr_cecs)) == 0 && !never_ready &&
          (sr & sr_drdy) == 0 && ++polls >= latency) {
        uint8_t b[4];
        static_cast<void>(noise.fill(b, 4, 0));  // the model's noise source cannot fail
        dr = zero_words ? 0u : (uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24);
        sr |= sr_drdy;
        polls = 0;
      }
      return sr;
    }
    if (offset == port::stm32_rng::dr) {
      const uint32_t v = (sr & sr_drdy) != 0 ? dr : 0u;
      sr &= ~sr_drdy;
      ++words;
      if (seed_error_at != 0 && words == seed_error_at) sr |= sr_secs | sr_seis;
      if (clock_error_at != 0 && words == clock_error_at) sr |= sr_cecs | sr_ceis;
      return v;
    }
    if (offset == port::stm32_rng::cr) return cr;
    return 0;
  }
  void write(uint32_t offset, uint32_t v) {
    using namespace port::stm32_rng;
    if (offset == port::stm32_rng::cr) {
      const bool enabling = (cr & cr_rngen) == 0 && (v & cr_rngen) != 0;
      cr = v;
      if (enabling && transient) sr &= ~(sr_secs | sr_cecs);
      if ((v & cr_rngen) == 0) sr &= ~sr_drdy;
    } else if (offset == port::stm32_rng::sr) {
      // SEIS and CEIS are rc_w0: a written 0 clears them; everything else is read-only.
      sr &= v | ~(sr_seis | sr_ceis);
    }
  }
};

using Stm32ModelBus = ModelBus<Stm32Model>;

}  // namespace tinyldp::test

#endif
