#pragma once
/// Reading a whole input file with a size limit, for the readers: every failure is an Io error
/// naming the path (missing, a directory, unreadable, larger than the limit).
#include "engine/core/result.h"

#include <cstdint>
#include <string>

namespace engine {

/// The file's bytes. `what` names the kind of file in the size message ("FX texts").
Result<std::string> readTextFile(const std::string& path, uint64_t maxBytes, const std::string& what);

} // namespace engine
