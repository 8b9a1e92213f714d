#pragma once
/// SymExpr: a symbolic size expression as PyTorch prints it in tensor annotations and shapes
/// ("4", "s0", "s0*4", "2*s1 + 1", "(s0//2)", "FloorDiv(s0, 2)", "Max(1, s0)", "Mod(s0, 8)").
/// Parsed once; evaluated for each call's symbol values.
#include "engine/core/result.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace engine {

using SymbolValues = std::map<std::string, int64_t>;

class SymExpr {
public:
    SymExpr(); ///< the constant 0
    static SymExpr constant(int64_t v);
    /// Parses `text`; on failure the error says which character was unexpected.
    static Result<SymExpr> parse(const std::string& text);

    /// The text as PyTorch would print it (normalised spacing).
    const std::string& text() const { return m_text; }
    std::optional<int64_t> constantValue() const;
    /// If the expression is exactly one symbol ("s0"), its name.
    std::optional<std::string> singleSymbol() const;
    /// Every symbol the expression mentions, sorted, without duplicates.
    std::vector<std::string> symbols() const;
    /// Evaluates with Python integer semantics (// floors, % follows the divisor's sign);
    /// an unbound symbol or division by zero is an error naming it.
    Result<int64_t> eval(const SymbolValues& values) const;

    struct Node; ///< expression tree, defined in sym_expr.cpp

private:
    std::shared_ptr<const Node> m_root;
    std::string m_text;
};

} // namespace engine
