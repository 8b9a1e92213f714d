#pragma once
/// The Python subset FX's code printer emits, for the FX readers and writer (internal): tokens,
/// logical lines (Python's implicit joining inside brackets), expressions and their canonical text.
/// Every loop is bounded by the input and every recursion by kMaxNesting, so hostile input can
/// neither hang nor overflow the stack.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace engine::readers::detail {

constexpr int kMaxNesting = 200; ///< brackets, operators and annotation wrappers
constexpr size_t kMaxLogicalLineBytes = size_t(4) << 20; ///< a longer statement is skipped
constexpr size_t kMaxTokensPerLine = size_t(1) << 20;

struct Token {
    enum class Kind { Name, Int, Float, String, Op, Comment };
    /// User-provided, so that `tokens.emplace_back()` only sets the members below instead of first
    /// zeroing the whole token (value-initialisation).
    Token() noexcept { }

    Kind kind = Kind::Op;
    size_t offset = 0; ///< in the whole text
    std::string_view text; ///< the source spelling (a view into the text being read)
    std::string value; ///< String: the decoded value; Comment: the text after '#', trimmed
    uint64_t u = 0; ///< Int: the value (larger integers are Float)
    double f = 0.0; ///< Float
    bool percent = false; ///< Name written `%name` (the graph dump's node references)
};

/// One statement as the printer lays it out: a physical line, or several joined by open brackets.
struct LogicalLine {
    enum class Kind { Blank, Comment, Class, Code };
    Kind kind = Kind::Blank;
    size_t begin = 0; ///< offset of the first non-blank character (Blank: of the line)
    size_t end = 0; ///< offset just past the last character, newline excluded
    int line = 1; ///< physical line of `begin`
    size_t lineStart = 0; ///< offset where that physical line starts
    int lastLine = 1; ///< physical line of `end`
    int indent = 0; ///< leading whitespace characters of the first physical line
    std::vector<Token> tokens; ///< Code: the tokens, comments included
    std::string problem; ///< non-empty: the line could not be tokenized (tokens are incomplete)
    size_t problemOffset = 0;
};

/// Calls `visit(index, token)` for every operator token in [begin, end) that is outside brackets
/// (`;` between statements, `=` of an assignment, `+=`), in order.
template <class Visit> void forEachTopLevelOp(const std::vector<Token>& tokens, size_t begin, size_t end, Visit&& visit)
{
    int depth = 0;
    end = end < tokens.size() ? end : tokens.size();
    for (size_t i = begin; i < end; ++i) {
        const Token& t = tokens[i];
        if (t.kind != Token::Kind::Op)
            continue;
        const char c = t.text.size() == 1 ? t.text[0] : '\0';
        if (c == '(' || c == '[' || c == '{')
            ++depth;
        else if ((c == ')' || c == ']' || c == '}') && depth > 0)
            --depth;
        else if (depth == 0)
            visit(i, t);
    }
}

/// Splits text into logical lines. A line that starts with `class ` is a Class line on its own
/// (class names such as `<lambda>` are not Python). Inside brackets a following physical line
/// continues the statement only if it is indented deeper than the statement's first line or starts
/// with a closing bracket, so one unclosed bracket cannot swallow the rest of a file.
class LineScanner {
public:
    explicit LineScanner(std::string_view text, bool percentNames = false);
    bool next(LogicalLine& out); ///< false at the end of the text

private:
    void scanCode(LogicalLine& out);
    bool scanString(LogicalLine& out, size_t& pos, bool store, char quote, size_t start);
    void scanNumber(LogicalLine& out, size_t& pos, bool store);
    bool continuationAllowed(size_t nextLineStart, int indent) const;
    /// Sets `value` to `text`, in a buffer of an earlier line's token when one is spare.
    void assignValue(std::string& value, std::string_view text);

    std::string_view m_text;
    bool m_percentNames;
    size_t m_pos = 0;
    int m_line = 1;
    std::vector<std::string> m_spare; ///< heap buffers of the previous line's token values, for reuse
};

struct Position {
    int line = 1;
    int column = 1;
};
/// Line and column (1-based) of `offset`, counting from a known line start at or before it.
Position locate(std::string_view text, int line, size_t lineStart, size_t offset);

/// An expression as FX prints it in a statement's right-hand side or an argument.
struct Expr {
    enum class Kind {
        Name,
        Int,
        Float,
        Str,
        Attr,
        Call,
        Subscript,
        Tuple,
        List,
        Dict,
        Unary,
        Binary,
        Slice,
        Ellipsis,
        Set
    };
    Kind kind = Kind::Name;
    std::string text; ///< Name and Attr: identifier; Str: value; Unary/Binary: operator; Float: spelling
    uint64_t u = 0; ///< Int
    double f = 0.0; ///< Float
    bool percent = false; ///< Name written `%name`
    size_t begin = 0; ///< source span, offsets in the whole text
    size_t end = 0;
    int depth = 1; ///< height of the tree, bounded by kMaxNesting
    /// Attr: [object]; Call: [callee, positional..., keyword values...]; Subscript: [object, index];
    /// Tuple, List, Set: items; Dict: [key, value, key, value, ...]; Unary: [operand]; Binary: [left, right];
    /// Slice: [lower, upper, step] (missing parts are the Name None).
    std::vector<Expr> kids;
    std::vector<std::string> keywords; ///< Call: names of the trailing keyword arguments

    size_t positionalCount() const { return kids.size() - 1 - keywords.size(); } ///< Call only
};

/// Empty `Expr::kids` vectors that still own their storage: a reader that parses statement after
/// statement gives each tree back (recycle()) for the next one to be built in.
using ExprPool = std::vector<std::vector<Expr>>;
/// Moves the kids storage of `e`'s whole tree into `pool` (up to a bound); `e` keeps no kids.
void recycle(Expr& e, ExprPool& pool);

/// Recursive-descent parser over the tokens [begin, end) of one logical line (comments skipped).
class ExprParser {
public:
    /// `pool`, if given, supplies storage for the trees' kids (see ExprPool).
    ExprParser(const std::vector<Token>& tokens, size_t begin, size_t end, ExprPool* pool = nullptr);

    /// One expression (no top-level tuple without parentheses).
    std::optional<Expr> expression();
    /// `a, b, c` (a Tuple when there is a top-level comma, trailing comma allowed) or one expression.
    std::optional<Expr> expressionList();

    bool atEnd() const { return m_pos >= m_end; }
    const Token* peek() const { return atEnd() ? nullptr : &m_tokens[m_pos]; }
    bool isOp(std::string_view op) const // inline: the operators are constants at every call
    {
        const Token* t = peek();
        return t && t->kind == Token::Kind::Op && t->text == op;
    }
    bool isName(std::string_view name) const;
    bool acceptOp(std::string_view op)
    {
        if (!isOp(op))
            return false;
        ++m_pos;
        skipComments();
        return true;
    }
    size_t position() const { return m_pos; }
    /// Offset in the text of the current token (or of the end of the last one).
    size_t offset() const;

    bool failed() const { return !m_error.empty(); }
    const std::string& error() const { return m_error; }
    size_t errorOffset() const { return m_errorOffset; }
    void fail(const std::string& message);

private:
    // Each parses into `out`, a default-constructed Expr, and returns false on failure (then `out` is
    // unspecified): building in place spares moving every operand up through the levels.
    bool expressionAt(int depth, Expr& out);
    bool binary(int level, int depth, Expr& out);
    bool unary(int depth, Expr& out);
    bool power(int depth, Expr& out);
    bool primary(int depth, Expr& out);
    bool atom(int depth, Expr& out);
    bool sequence(std::string_view close, Expr::Kind kind, int depth, Expr& out);
    bool dict(int depth, Expr& out);
    bool subscript(int depth, Expr& out);
    bool callArguments(Expr& call, int depth);
    bool checkDepth(Expr& e);
    /// An empty kids vector with room for `capacity`, from the pool when it has one.
    std::vector<Expr> newKids(size_t capacity);
    /// Makes `e` a fresh node of `kind` whose first kid is what `e` was (one move of it), beginning
    /// where it began; room for `capacity` kids.
    void wrapFirst(Expr& e, Expr::Kind kind, size_t capacity);
    void skipComments()
    {
        while (m_pos < m_end && m_tokens[m_pos].kind == Token::Kind::Comment)
            ++m_pos;
    }

    const std::vector<Token>& m_tokens;
    ExprPool* m_pool;
    size_t m_pos;
    size_t m_end;
    std::string m_error;
    size_t m_errorOffset = 0;
};

/// Canonical Python text of an expression: what FX's repr() prints for the constant it stands for
/// (`torch.float32`, `device(type='cuda', index=0)`, `slice(None, 2, None)`). Reading the text back
/// gives the same text.
std::string exprText(const Expr& e);
/// Python's repr() of a string ('text', or "it's" when only double quotes avoid escapes);
/// `quote` forces the quote character.
std::string pyQuote(std::string_view s, char quote = 0);
/// Python's repr() of a float: 1.0, 1e-05, inf, -inf, nan.
std::string pyFloat(double v);
/// The dotted name an expression spells (`torch.ops.aten.add.Tensor`), if it is a chain of names.
std::optional<std::string> dottedName(const Expr& e);
bool isIdentifier(std::string_view s);

/// FX's operator sugar: "+" <-> "add", "//" <-> "floordiv", "[]"... Empty when there is none.
std::string binaryOperatorName(std::string_view symbol);
std::string binaryOperatorSymbol(std::string_view name);
std::string unaryOperatorName(std::string_view symbol);
std::string unaryOperatorSymbol(std::string_view name);
std::string inplaceOperatorName(std::string_view symbol); ///< "+=" -> "iadd"
std::string inplaceOperatorSymbol(std::string_view name); ///< "iadd" -> "+="

} // namespace engine::readers::detail
