#pragma once
/// The form every error of a reader takes (docs/DEVELOPER.md, "Errors"): its text starts with the
/// file's name as the user gave it, and says where in the file it went wrong (line:col, an offset, a
/// JSON or pickle path, a table and row, an archive member, a folder entry), or says that it is about
/// the whole file (empty, too big, not a regular file, cannot be opened, ...). The fuzz targets and
/// the CLI tests check every error they meet with these functions.
#include "engine/core/result.h"

#include <string>

namespace engine {

/// Whether `text` (an error's toString(), or a line the CLI printed after "error: ") names `file`
/// and a place in it. On false, `why` (if given) says what is missing.
bool textNamesPlace(const std::string& text, const std::string& file, std::string* why = nullptr);

/// textNamesPlace(e.toString(), file, why).
bool errorNamesPlace(const Error& e, const std::string& file, std::string* why = nullptr);

} // namespace engine
