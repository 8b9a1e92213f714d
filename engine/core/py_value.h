#pragma once
/// PyValue: a Python-like literal (None, bool, int, float, str, list/tuple) as users write TorchAir
/// options. TorchAir's validation messages quote values with Python's repr() and type(), so the
/// engine keeps the distinction Python makes (True vs 1, tuple vs list) and can print both.
#include "engine/core/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engine {

struct PyValue {
    enum class Kind { None, Bool, Int, Float, Str, List, Tuple };
    Kind kind = Kind::None;
    bool b = false;
    int64_t i = 0;
    double f = 0.0;
    std::string s;
    std::vector<PyValue> items; ///< List and Tuple

    static PyValue none() { return {}; }
    static PyValue boolean(bool v);
    static PyValue integer(int64_t v);
    static PyValue real(double v);
    static PyValue str(std::string v);
    static PyValue list(std::vector<PyValue> v);
    static PyValue tuple(std::vector<PyValue> v);

    /// Python's repr(): True, 3, 2.5, 'text', [1, 2], (0, 1), None.
    std::string repr() const;
    /// Python's type() as printed: <class 'bool'>, <class 'int'>, ...
    std::string typeRepr() const;
    /// Python's type(v).__name__: bool, int, float, str, list, tuple, NoneType.
    std::string typeName() const;
    /// Python's str(): like repr() except that strings are unquoted.
    std::string str() const;
    /// Python equality as used by `v in [True, False]` (True == 1, False == 0, 1 == 1.0).
    bool pyEquals(const PyValue& other) const;
    /// Python truthiness.
    bool truthy() const;
};

/// Parses a value as a user types it after `--set NAME=`: True/False/true/false, None/null, integers,
/// floats, quoted or bare strings, [a, b] lists and (a, b) tuples.
Result<PyValue> parsePyLiteral(const std::string& text);

/// Python's repr() of a str: single quotes unless the text holds one and no double quote (`quote`
/// forces one), backslash escapes for the quote, backslash, \n \r \t, and \x/\u/\U escapes for
/// characters Python does not print (text_codec.h appendPyQuoted).
std::string pyStrRepr(std::string_view s, char quote = 0);
/// Python's repr() of a list of str: ['a', "b'c"].
std::string pyStrList(const std::vector<std::string>& items);
/// Python's repr() of a float: the shortest digits that read back to the same double, positional
/// for decimal exponents in [-4, 16) (always with a fractional part: "1.0"), scientific with a
/// two-digit exponent otherwise ("1e-05", "1e+16"); "inf", "-inf", "nan".
std::string pyFloatRepr(double v);
/// PyOS_string_to_double as float() and marshal read float text: [sign] decimal or exponent form,
/// inf, infinity, nan (any case); out-of-range values become inf or 0. No spaces, no underscores.
bool parsePyFloat(std::string_view s, double& out);

} // namespace engine
