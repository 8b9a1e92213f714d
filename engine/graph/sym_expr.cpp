#include "engine/graph/sym_expr.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace engine {

namespace {

// Scenario files are untrusted: a bound on the tree depth keeps parsing, evaluation and the
// destruction of the shared_ptr chain from exhausting the stack on hostile input.
constexpr int kMaxDepth = 256;

} // namespace

struct SymExpr::Node {
    enum class Kind { Int, Sym, Neg, Add, Sub, Mul, TrueDiv, FloorDiv, Mod, Pow, Call };
    Kind kind = Kind::Int;
    int64_t value = 0;
    std::string name; ///< symbol or function name
    std::vector<std::shared_ptr<const Node>> kids;
    int depth = 1;
};

namespace {

using NodeP = std::shared_ptr<const SymExpr::Node>;
using Kind = SymExpr::Node::Kind;

// Python's precedence, lowest first; unary minus binds tighter than * but looser than **.
enum Prec { PrecAdd = 1, PrecMul = 2, PrecUnary = 3, PrecPow = 4, PrecAtom = 5 };

struct KindInfo {
    int prec;
    const char* op; ///< binary operator as printed
};

// Indexed by Kind.
const KindInfo kKinds[] = { { PrecAtom, "" }, { PrecAtom, "" }, { PrecUnary, "-" }, { PrecAdd, " + " },
    { PrecAdd, " - " }, { PrecMul, "*" }, { PrecMul, "/" }, { PrecMul, "//" }, { PrecMul, " % " }, { PrecPow, "**" },
    { PrecAtom, "" } };

int precedence(const SymExpr::Node& n)
{
    return n.kind == Kind::Int && n.value < 0 ? PrecUnary : kKinds[int(n.kind)].prec;
}

void print(const SymExpr::Node& n, std::string& out);

void printOperand(const SymExpr::Node& n, bool parens, std::string& out)
{
    if (parens)
        out += '(';
    print(n, out);
    if (parens)
        out += ')';
}

// Prints with the fewest parentheses that keep Python's reading of the expression, in the style
// sympy's str() uses ("2*s0 + 1", "s0//2", "Max(1, s0)").
void print(const SymExpr::Node& n, std::string& out)
{
    switch (n.kind) {
    case Kind::Int:
        out += std::to_string(n.value);
        return;
    case Kind::Sym:
        out += n.name;
        return;
    case Kind::Neg:
        out += '-';
        printOperand(*n.kids[0], precedence(*n.kids[0]) < PrecUnary, out);
        return;
    case Kind::Call:
        out += n.name;
        out += '(';
        for (size_t i = 0; i < n.kids.size(); ++i) {
            if (i)
                out += ", ";
            print(*n.kids[i], out);
        }
        out += ')';
        return;
    case Kind::Pow:
        // Right-associative, and the exponent may itself be a unary minus (2**-1).
        printOperand(*n.kids[0], precedence(*n.kids[0]) <= PrecPow, out);
        out += "**";
        printOperand(*n.kids[1], precedence(*n.kids[1]) < PrecUnary, out);
        return;
    default: {
        int p = precedence(n);
        printOperand(*n.kids[0], precedence(*n.kids[0]) < p, out);
        out += kKinds[int(n.kind)].op;
        printOperand(*n.kids[1], precedence(*n.kids[1]) <= p, out);
        return;
    }
    }
}

std::string textOf(const SymExpr::Node& n)
{
    std::string s;
    print(n, s);
    return s;
}

struct FunctionSpec {
    const char* name;
    int minArgs;
    int maxArgs; ///< -1: any number
};

// Functions torch's sympy printing and inductor emit for sizes.
const FunctionSpec kFunctions[]
    = { { "FloorDiv", 2, 2 }, { "CeilDiv", 2, 2 }, { "CleanDiv", 2, 2 }, { "IntTrueDiv", 2, 2 }, { "Mod", 2, 2 },
          { "PythonMod", 2, 2 }, { "ModularIndexing", 3, 3 }, { "Max", 1, -1 }, { "Min", 1, -1 }, { "floor", 1, 1 },
          { "ceiling", 1, 1 }, { "FloorToInt", 1, 1 }, { "CeilToInt", 1, 1 }, { "TruncToInt", 1, 1 }, { "Abs", 1, 1 } };

const FunctionSpec* findFunction(const std::string& name)
{
    for (const auto& f : kFunctions) {
        if (name == f.name)
            return &f;
    }
    return nullptr;
}

NodeP makeNode(Kind kind, std::vector<NodeP> kids, std::string name = {}, int64_t value = 0)
{
    auto n = std::make_shared<SymExpr::Node>();
    n->kind = kind;
    n->name = std::move(name);
    n->value = value;
    int depth = 0;
    for (const auto& k : kids)
        depth = std::max(depth, k->depth);
    n->depth = depth + 1;
    n->kids = std::move(kids);
    return n;
}

class Parser {
public:
    explicit Parser(const std::string& text)
        : m_text(text)
    {
    }

    Result<NodeP> parse()
    {
        NodeP root = expression(0);
        if (!m_error) {
            skipSpace();
            if (m_pos < m_text.size())
                fail("unexpected '" + std::string(1, m_text[m_pos]) + "'");
        }
        if (m_error)
            return *m_error;
        return root;
    }

private:
    void fail(const std::string& what)
    {
        if (m_error)
            return;
        std::string where = m_pos < m_text.size() ? "at position " + std::to_string(m_pos + 1)
                                                  : "at the end (position " + std::to_string(m_pos + 1) + ")";
        m_error = makeError(ErrorCode::ParseError, "invalid size expression '" + m_text + "': " + what + " " + where);
    }

    void skipSpace()
    {
        while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos])))
            ++m_pos;
    }

    bool accept(const char* op)
    {
        skipSpace();
        size_t n = std::char_traits<char>::length(op);
        if (m_text.compare(m_pos, n, op) != 0)
            return false;
        // "*" must not swallow the first half of "**", nor "/" of "//".
        if (n == 1 && (op[0] == '*' || op[0] == '/') && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == op[0])
            return false;
        m_pos += n;
        return true;
    }

    NodeP tooDeep()
    {
        fail("nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)");
        return nullptr;
    }

    NodeP checked(NodeP n) { return n && n->depth > kMaxDepth ? tooDeep() : n; }

    // Left-associative binary operators: level 0 is + and -, level 1 is //, *, / and %.
    NodeP binary(int depth, int level)
    {
        static const std::pair<const char*, Kind> ops[2][4] = {
            { { "+", Kind::Add }, { "-", Kind::Sub }, { nullptr, Kind::Int }, { nullptr, Kind::Int } },
            { { "//", Kind::FloorDiv }, { "*", Kind::Mul }, { "/", Kind::TrueDiv }, { "%", Kind::Mod } },
        };
        if (depth > kMaxDepth)
            return tooDeep();
        NodeP left = level == 0 ? binary(depth, 1) : unary(depth);
        while (left && !m_error) {
            const std::pair<const char*, Kind>* op = nullptr;
            for (const auto& candidate : ops[level]) {
                if (candidate.first && accept(candidate.first)) {
                    op = &candidate;
                    break;
                }
            }
            if (!op)
                break;
            NodeP right = level == 0 ? binary(depth, 1) : unary(depth);
            if (!right)
                return nullptr;
            left = checked(makeNode(op->second, { left, right }));
        }
        return m_error ? nullptr : left;
    }

    NodeP expression(int depth) { return binary(depth, 0); }

    NodeP unary(int depth)
    {
        if (depth > kMaxDepth)
            return tooDeep();
        if (accept("-")) {
            NodeP operand = unary(depth + 1);
            if (!operand)
                return nullptr;
            // Fold "-4" into a literal so that constantValue() and text() treat it as one number.
            if (operand->kind == Kind::Int && operand->value > 0)
                return makeNode(Kind::Int, {}, {}, -operand->value);
            return checked(makeNode(Kind::Neg, { operand }));
        }
        if (accept("+"))
            return unary(depth + 1);
        return power(depth);
    }

    NodeP power(int depth)
    {
        NodeP base = atom(depth);
        if (!base || m_error)
            return nullptr;
        if (accept("**")) {
            NodeP exponent = unary(depth + 1);
            if (!exponent)
                return nullptr;
            return checked(makeNode(Kind::Pow, { base, exponent }));
        }
        return base;
    }

    NodeP atom(int depth)
    {
        skipSpace();
        if (m_pos >= m_text.size()) {
            fail("expected a number, a symbol or '('");
            return nullptr;
        }
        char c = m_text[m_pos];
        if (std::isdigit(static_cast<unsigned char>(c)))
            return number();
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_')
            return identifier(depth);
        if (c == '(') {
            ++m_pos;
            NodeP inner = expression(depth + 1);
            if (!inner)
                return nullptr;
            if (!accept(")")) {
                fail("expected ')'");
                return nullptr;
            }
            return inner;
        }
        fail("unexpected '" + std::string(1, c) + "'");
        return nullptr;
    }

    NodeP number()
    {
        size_t start = m_pos;
        uint64_t v = 0;
        while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
            v = v * 10 + uint64_t(m_text[m_pos] - '0');
            if (v > uint64_t(INT64_MAX)) {
                m_pos = start;
                fail("integer too large");
                return nullptr;
            }
            ++m_pos;
        }
        if (m_pos < m_text.size()
            && (m_text[m_pos] == '.' || std::isalpha(static_cast<unsigned char>(m_text[m_pos])))) {
            fail("unexpected '" + std::string(1, m_text[m_pos]) + "' (sizes are integers)");
            return nullptr;
        }
        return makeNode(Kind::Int, {}, {}, int64_t(v));
    }

    NodeP identifier(int depth)
    {
        size_t start = m_pos;
        while (
            m_pos < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_'))
            ++m_pos;
        std::string name = m_text.substr(start, m_pos - start);
        size_t afterName = m_pos;
        skipSpace();
        if (m_pos >= m_text.size() || m_text[m_pos] != '(') {
            m_pos = afterName;
            return makeNode(Kind::Sym, {}, name);
        }
        const FunctionSpec* spec = findFunction(name);
        if (!spec) {
            m_pos = start;
            fail("unknown function '" + name + "'");
            return nullptr;
        }
        ++m_pos; // '('
        std::vector<NodeP> args;
        if (!accept(")")) {
            do {
                NodeP a = expression(depth + 1);
                if (!a)
                    return nullptr;
                args.push_back(a);
            } while (accept(","));
            if (!accept(")")) {
                fail("expected ',' or ')'");
                return nullptr;
            }
        }
        int n = int(args.size());
        if (n < spec->minArgs || (spec->maxArgs >= 0 && n > spec->maxArgs)) {
            m_pos = start;
            std::string want = spec->minArgs == spec->maxArgs ? std::to_string(spec->minArgs)
                                                              : "at least " + std::to_string(spec->minArgs);
            fail(name + "() takes " + want + " argument" + (spec->minArgs == 1 ? "" : "s") + ", got "
                + std::to_string(n));
            return nullptr;
        }
        return checked(makeNode(Kind::Call, std::move(args), name));
    }

    const std::string& m_text;
    size_t m_pos = 0;
    std::optional<Error> m_error;
}; // namespace

// Exact rational arithmetic: sympy sizes may divide with "/" inside floor()/ceiling(), and the
// result is an integer only at the end. The denominator is always positive.
struct Rational {
    __int128 num = 0;
    __int128 den = 1;
};

constexpr __int128 kLimit = __int128(INT64_MAX);

class Evaluator {
public:
    Evaluator(const SymbolValues& values, const std::string& text)
        : m_values(values)
        , m_text(text)
    {
    }

    Result<int64_t> run(const SymExpr::Node& root)
    {
        Rational r = eval(root);
        if (m_error)
            return *m_error;
        if (r.den != 1)
            return makeError(ErrorCode::InvalidArgument,
                "size expression '" + m_text + "' is not an integer (" + std::to_string(int64_t(r.num)) + "/"
                    + std::to_string(int64_t(r.den)) + ")" + bindings());
        return int64_t(r.num);
    }

private:
    std::string bindings() const
    {
        std::string s;
        for (const auto& name : m_used) {
            s += s.empty() ? " with " : ", ";
            s += name + "=" + std::to_string(m_values.at(name));
        }
        return s;
    }

    // Records the first error; the returned 0 lets callers unwind without further checks.
    Rational fail(ErrorCode code, const std::string& what)
    {
        if (!m_error)
            m_error = makeError(code, "cannot evaluate '" + m_text + "': " + what + bindings());
        return integer(0);
    }

    static __int128 gcd(__int128 a, __int128 b)
    {
        if (a < 0)
            a = -a;
        while (b != 0) {
            __int128 t = a % b;
            a = b;
            b = t < 0 ? -t : t;
        }
        return a;
    }

    Rational make(__int128 num, __int128 den)
    {
        if (den < 0) {
            num = -num;
            den = -den;
        }
        __int128 g = gcd(num, den);
        if (g > 1) {
            num /= g;
            den /= g;
        }
        if (num > kLimit || num < -kLimit || den > kLimit)
            fail(ErrorCode::InvalidArgument, "the value does not fit in 64 bits");
        return { num, den };
    }

    static Rational integer(__int128 v) { return { v, 1 }; }

    static __int128 floorOf(const Rational& r)
    {
        __int128 q = r.num / r.den;
        if ((r.num % r.den != 0) && r.num < 0)
            --q;
        return q;
    }

    static bool less(const Rational& a, const Rational& b) { return a.num * b.den < b.num * a.den; }

    Rational divide(const Rational& a, const Rational& b, const SymExpr::Node& divisor)
    {
        if (b.num == 0)
            return fail(ErrorCode::InvalidArgument, "division by zero ('" + textOf(divisor) + "' is 0)");
        return make(a.num * b.den, a.den * b.num);
    }

    Rational floorDiv(const Rational& a, const Rational& b, const SymExpr::Node& divisor)
    {
        Rational q = divide(a, b, divisor);
        return m_error ? q : integer(floorOf(q));
    }

    // Python's %: the result takes the divisor's sign.
    Rational mod(const Rational& a, const Rational& b, const SymExpr::Node& divisor)
    {
        Rational q = floorDiv(a, b, divisor);
        if (m_error)
            return q;
        Rational bq = make(b.num * q.num, b.den);
        return make(a.num * bq.den - bq.num * a.den, a.den * bq.den);
    }

    Rational pow(const Rational& base, const Rational& exp)
    {
        if (exp.den != 1 || exp.num < 0)
            return fail(ErrorCode::InvalidArgument, "only non-negative integer powers are supported");
        // Squaring keeps huge exponents of 0, 1 and -1 fast; anything else overflows within 64 steps.
        Rational r = integer(1);
        Rational b = base;
        for (__int128 e = exp.num; e > 0 && !m_error;) {
            if (e & 1)
                r = make(r.num * b.num, r.den * b.den);
            e >>= 1;
            if (e > 0 && !m_error)
                b = make(b.num * b.num, b.den * b.den);
        }
        return r;
    }

    Rational eval(const SymExpr::Node& n)
    {
        if (m_error)
            return integer(0);
        switch (n.kind) {
        case Kind::Int:
            return integer(n.value);
        case Kind::Sym: {
            auto it = m_values.find(n.name);
            if (it == m_values.end())
                return fail(ErrorCode::InvalidArgument, "no value for symbol '" + n.name + "'");
            m_used.insert(n.name);
            return integer(it->second);
        }
        case Kind::Neg: {
            Rational a = eval(*n.kids[0]);
            return make(-a.num, a.den);
        }
        case Kind::Call:
            return call(n);
        default:
            break;
        }
        Rational a = eval(*n.kids[0]);
        Rational b = eval(*n.kids[1]);
        if (m_error)
            return integer(0);
        switch (n.kind) {
        case Kind::Add:
            return make(a.num * b.den + b.num * a.den, a.den * b.den);
        case Kind::Sub:
            return make(a.num * b.den - b.num * a.den, a.den * b.den);
        case Kind::Mul:
            return make(a.num * b.num, a.den * b.den);
        case Kind::TrueDiv:
            return divide(a, b, *n.kids[1]);
        case Kind::FloorDiv:
            return floorDiv(a, b, *n.kids[1]);
        case Kind::Mod:
            return mod(a, b, *n.kids[1]);
        case Kind::Pow:
            return pow(a, b);
        default:
            return fail(ErrorCode::Internal, "unknown node kind");
        }
    }

    Rational call(const SymExpr::Node& n)
    {
        std::vector<Rational> a;
        for (const auto& k : n.kids)
            a.push_back(eval(*k));
        if (m_error)
            return integer(0);
        const std::string& f = n.name;
        if (f == "FloorDiv" || f == "CleanDiv")
            return floorDiv(a[0], a[1], *n.kids[1]);
        if (f == "CeilDiv") {
            Rational q = floorDiv(make(-a[0].num, a[0].den), a[1], *n.kids[1]);
            return make(-q.num, q.den);
        }
        if (f == "IntTrueDiv")
            return divide(a[0], a[1], *n.kids[1]);
        if (f == "Mod" || f == "PythonMod")
            return mod(a[0], a[1], *n.kids[1]);
        if (f == "ModularIndexing")
            return mod(floorDiv(a[0], a[1], *n.kids[1]), a[2], *n.kids[2]);
        if (f == "Max" || f == "Min") {
            Rational best = a[0];
            for (const auto& r : a) {
                if (f == "Max" ? less(best, r) : less(r, best))
                    best = r;
            }
            return best;
        }
        if (f == "floor" || f == "FloorToInt")
            return integer(floorOf(a[0]));
        if (f == "ceiling" || f == "CeilToInt")
            return integer(-floorOf(make(-a[0].num, a[0].den)));
        if (f == "TruncToInt")
            return integer(a[0].num / a[0].den);
        if (f == "Abs")
            return make(a[0].num < 0 ? -a[0].num : a[0].num, a[0].den);
        return fail(ErrorCode::Internal, "unknown function '" + f + "'");
    }

    const SymbolValues& m_values;
    const std::string& m_text;
    std::set<std::string> m_used;
    std::optional<Error> m_error;
};

// Every Node carries default SymExprs; sharing one zero spares an allocation each.
NodeP zeroNode()
{
    static const NodeP zero = makeNode(Kind::Int, {});
    return zero;
}

void collectSymbols(const SymExpr::Node& n, std::set<std::string>& out)
{
    if (n.kind == Kind::Sym)
        out.insert(n.name);
    for (const auto& k : n.kids)
        collectSymbols(*k, out);
}

} // namespace

SymExpr::SymExpr()
    : m_root(zeroNode())
    , m_text("0")
{
}

SymExpr SymExpr::constant(int64_t v)
{
    SymExpr e;
    e.m_root = makeNode(Kind::Int, {}, {}, v);
    e.m_text = std::to_string(v);
    return e;
}

Result<SymExpr> SymExpr::parse(const std::string& text)
{
    Parser parser(text);
    auto root = parser.parse();
    if (!root)
        return root.error();
    SymExpr e;
    e.m_root = root.value();
    e.m_text = textOf(*e.m_root);
    return e;
}

std::optional<int64_t> SymExpr::constantValue() const
{
    if (m_root->kind == Kind::Int)
        return m_root->value;
    if (!symbols().empty())
        return std::nullopt;
    auto v = eval({});
    if (!v)
        return std::nullopt;
    return v.value();
}

std::optional<std::string> SymExpr::singleSymbol() const
{
    if (m_root->kind == Kind::Sym)
        return m_root->name;
    return std::nullopt;
}

std::vector<std::string> SymExpr::symbols() const
{
    std::set<std::string> s;
    collectSymbols(*m_root, s);
    return { s.begin(), s.end() };
}

Result<int64_t> SymExpr::eval(const SymbolValues& values) const
{
    return Evaluator(values, m_text).run(*m_root);
}

} // namespace engine
