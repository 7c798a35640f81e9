// --fvs_algorithm of bin/pipeline and bin/middletier: the FVS configuration
// of a figure's algorithm name (partitioners/reorder/fvs.h), read by a parsed
// row of each program's options table (engine/core/options.h).
//
// Thread safety: a pure function.
#pragma once

#include <stdexcept>
#include <string>

#include "engine/core/cli.h"
#include "partitioners/reorder/fvs.h"

namespace ccb {

// fvs_config_from_name(name); a ConfigError naming --`flag` and the allowed
// names for an unknown one.
inline reorder::FvsConfig fvs_config_from_flag(const std::string& name, const char* flag) {
  try {
    return reorder::fvs_config_from_name(name);
  } catch (const std::invalid_argument&) {
    require(false, flag, reorder::algorithm_names());
  }
  return {};
}

}  // namespace ccb
