// The name mended code gives the runtime module (`import graphmend.runtime as <this>`): the
// rewrites emit calls through it, and the analysis knows the mended forms by it.
#pragma once

namespace graphmend {

inline constexpr const char* kRuntimeName = "__graphmend_rt__";

}  // namespace graphmend
