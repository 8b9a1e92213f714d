#pragma once
/// Settings as users type them, `NAME=VALUE` with the value a Python literal: `--set` on the command
/// line, the config form, and the overrides stored with each run. Shared so that every front end
/// reads, writes and merges them the same way.
#include "engine/core/py_value.h"
#include "engine/core/result.h"

#include <string>
#include <utility>
#include <vector>

namespace engine::config {

using Setting = std::pair<std::string, PyValue>;

/// Reads `NAME=VALUE`. Errors: no '=' or an empty name ("expects NAME=VALUE, got '<text>'", no
/// context), or a value that is not a literal (parsePyLiteral's error as the message, the whole
/// text as the context).
Result<Setting> parseSetting(const std::string& text);

/// `NAME=repr(VALUE)`: what parseSetting reads back as the same setting, one spelling per value
/// (`true`, `True` and `1 == 1` typed differently give one text only when they are the same Python value).
std::string settingText(const Setting& setting);

/// The row of optionTable() that `name` names in either spelling, or -1 for a name outside the table.
int optionIndex(const std::string& name);

/// `later` applied on top of `earlier`, later wins: a setting replaces every earlier setting of the
/// same option, whichever spelling either uses (same optionIndex, else the same name), and goes to
/// the end. The result names each option once, so two merged lists mean the same configuration when
/// they hold the same settings in any order (sameSettings).
std::vector<Setting> mergeSettings(const std::vector<Setting>& earlier, const std::vector<Setting>& later);

/// True when `a` and `b` hold the same settings (compared as settingText) in any order.
bool sameSettings(const std::vector<Setting>& a, const std::vector<Setting>& b);

} // namespace engine::config
