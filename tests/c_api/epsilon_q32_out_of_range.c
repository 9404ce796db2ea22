/* SPDX-License-Identifier: Apache-2.0 */
/* Must not compile: TINYLDP_EPSILON_Q32 with constant arguments it cannot represent (CMake's
 * c_api_epsilon_q32_* tests build this with -DCASE=1 … 3 and expect the macro's error). */
#include "tinyldp.h"

uint64_t epsilon_out_of_range(void);
uint64_t epsilon_out_of_range(void) {
#if CASE == 1
  return TINYLDP_EPSILON_Q32(4294967297u, 1); /* 2^32 + 1: would wrap to ε = 1 */
#elif CASE == 2
  return TINYLDP_EPSILON_Q32(1, 0); /* no value */
#else
  return TINYLDP_EPSILON_Q32(-1, 1); /* negative: beyond 2^32 once converted */
#endif
}
