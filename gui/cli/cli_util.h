#pragma once
/// Option parsing shared by the headless subcommands.
#include "engine/core/py_value.h"
#include "engine/graph/sym_expr.h"

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace gui::cli {

/// `NAME=VALUE` of `--set` (engine::config::parseSetting); false (with a message) if malformed.
bool parseSetting(const std::string& text, std::vector<std::pair<std::string, engine::PyValue>>& into,
    std::ostream& err, const char* command);
/// `s0=4,s1=128` of `--symbols`; false (with a message) if malformed.
bool parseSymbols(const std::string& text, engine::SymbolValues& into, std::ostream& err, const char* command);

/// `SEL=KIND` of `--input-kind` (engine::scenario::checkInputKindSpec); false (with a message) if malformed.
bool checkInputKind(const std::string& text, std::ostream& err, const char* command);

/// `text` padded with spaces to `width` (on the left when `right`), for table columns.
std::string pad(std::string text, size_t width, bool right = false);

} // namespace gui::cli
