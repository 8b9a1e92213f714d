// Shared pieces of the FX readers: diagnostics, annotations, kinds, getitem synthesis, constants.
#include "engine/readers/fx_reader_internal.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

namespace engine::readers::detail {

namespace {

constexpr int64_t kMaxGetItemIndex = 1 << 16; ///< larger indices are not synthesized (hostile input)

std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

// Splits at commas outside brackets; an empty last part (trailing comma) is dropped.
std::vector<std::string_view> splitTopLevel(std::string_view s)
{
    std::vector<std::string_view> parts;
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '(' || c == '[' || c == '{')
            ++depth;
        else if ((c == ')' || c == ']' || c == '}') && depth > 0)
            --depth;
        else if (c == ',' && depth == 0) {
            parts.push_back(trim(s.substr(start, i - start)));
            start = i + 1;
        }
    }
    std::string_view last = trim(s.substr(start));
    if (!last.empty() || !parts.empty())
        parts.push_back(last);
    if (!parts.empty() && parts.back().empty())
        parts.pop_back();
    return parts;
}

// Index of the bracket closing the one at `open`, or npos.
size_t matching(std::string_view s, size_t open)
{
    int depth = 0;
    for (size_t i = open; i < s.size(); ++i) {
        char c = s[i];
        if (c == '(' || c == '[' || c == '{')
            ++depth;
        else if (c == ')' || c == ']' || c == '}') {
            if (--depth == 0)
                return i;
        }
    }
    return std::string_view::npos;
}

struct DTypeName {
    const char* name;
    DType dtype;
};

// PyTorch's annotation abbreviations. The fnuz float8 variants have the element size of the fn ones,
// which is all the IR models.
const DTypeName kDTypes[] = { { "f32", DType::F32 }, { "f16", DType::F16 }, { "bf16", DType::BF16 },
    { "f64", DType::F64 }, { "i64", DType::I64 }, { "i32", DType::I32 }, { "i16", DType::I16 }, { "i8", DType::I8 },
    { "u8", DType::U8 }, { "b8", DType::Bool }, { "c64", DType::C64 }, { "c128", DType::C128 },
    { "f8e4m3fn", DType::F8E4M3 }, { "f8e5m2", DType::F8E5M2 }, { "f8e4m3fnuz", DType::F8E4M3 },
    { "f8e5m2fnuz", DType::F8E5M2 }, { "unknown", DType::Unknown } };

// Abbreviations PyTorch prints that the IR has no DType for.
const char* const kUnmodelledDTypes[] = { "c32", "u16", "u32", "u64", "b16", "b1x8", "f8e8m0fnu", "f8e8m0fnu_x4",
    "f4e2m1fnx2", "i1", "i2", "i4", "u1", "u2", "u3", "u4", "u5", "u6", "u7" };

DType annotationDType(std::string_view name, std::vector<std::string>& warnings)
{
    for (const auto& d : kDTypes) {
        if (name == d.name)
            return d.dtype;
    }
    DType t = parseDType(std::string(name));
    if (t == DType::Unknown)
        warnings.push_back("dtype '" + std::string(name)
            + "' is not one the simulator models; its element size is unknown (DType::Unknown)");
    return t;
}

Result<std::vector<SymExpr>> parseSizes(std::string_view list, const char* what)
{
    std::vector<SymExpr> out;
    for (std::string_view item : splitTopLevel(list)) {
        if (item.empty())
            return makeError(ErrorCode::ParseError, std::string("empty entry in the ") + what);
        auto e = SymExpr::parse(std::string(item));
        if (!e)
            return makeError(ErrorCode::ParseError, std::string("in the ") + what + ": " + e.error().message);
        out.push_back(std::move(e.value()));
    }
    return out;
}

bool symbolic(const SymExpr& e)
{
    return !e.constantValue().has_value();
}

Result<Annotation> parseAnnotationAt(std::string_view text, std::vector<std::string>& warnings, int depth)
{
    if (depth > 16)
        return makeError(ErrorCode::ParseError, "annotation nested too deeply");
    const std::string_view t = trim(text);
    if (t.empty())
        return makeError(ErrorCode::ParseError, "empty annotation");
    Annotation a;
    if (t.front() == '(' && matching(t, 0) == t.size() - 1) {
        a.kind = Annotation::Kind::Tuple;
        for (std::string_view part : splitTopLevel(t.substr(1, t.size() - 2))) {
            auto inner = parseAnnotationAt(part, warnings, depth + 1);
            if (!inner)
                return inner.error();
            if (inner->kind != Annotation::Kind::Tensor)
                return makeError(ErrorCode::ParseError, "a tuple annotation may only hold tensor annotations");
            a.tensors.push_back(std::move(inner->tensors[0]));
            a.symbolic = a.symbolic || inner->symbolic;
        }
        return a;
    }
    const size_t paren = t.find('(');
    const size_t bracket = t.find('[');
    if (paren != std::string_view::npos && (bracket == std::string_view::npos || paren < bracket)) {
        std::string_view head = trim(t.substr(0, paren));
        if (matching(t, paren) != t.size() - 1 || head.empty() || !std::all_of(head.begin(), head.end(), [](char c) {
                return std::isalnum((unsigned char)c) || c == '_' || c == '.';
            }))
            return makeError(ErrorCode::ParseError,
                "expected a dtype and sizes such as 'f32[4, 4]', 'Sym(s0)' or a "
                "tensor subclass such as 'DTensor(f32[4, 4], ...)'");
        std::string_view inner = t.substr(paren + 1, t.size() - paren - 2);
        if (head == "Sym") {
            auto e = SymExpr::parse(std::string(trim(inner)));
            if (!e)
                return makeError(ErrorCode::ParseError, "in Sym(...): " + e.error().message);
            a.kind = Annotation::Kind::Sym;
            a.symbol = e.value();
            a.symbolic = symbolic(a.symbol);
            return a;
        }
        // A subclass wrapper (DTensor adds its placements after the inner tensor): the inner tensor is
        // what the memory model sees.
        auto parts = splitTopLevel(inner);
        if (parts.empty())
            return makeError(ErrorCode::ParseError, "'" + std::string(head) + "(...)' holds no tensor annotation");
        return parseAnnotationAt(parts[0], warnings, depth + 1);
    }
    if (bracket == std::string_view::npos || bracket == 0)
        return makeError(ErrorCode::ParseError, "expected a dtype and sizes such as 'f32[4, 4]'");
    std::string_view dtype = t.substr(0, bracket);
    if (!std::all_of(dtype.begin(), dtype.end(), [](char c) { return std::isalnum((unsigned char)c) || c == '_'; }))
        return makeError(ErrorCode::ParseError, "expected a dtype such as 'f32' before '['");
    TensorMeta meta;
    meta.dtype = annotationDType(dtype, warnings);
    size_t close = matching(t, bracket);
    if (close == std::string_view::npos)
        return makeError(ErrorCode::ParseError, "the sizes' '[' is not closed");
    auto shape = parseSizes(t.substr(bracket + 1, close - bracket - 1), "sizes");
    if (!shape)
        return shape.error();
    meta.shape = std::move(shape.value());
    size_t rest = close + 1;
    if (rest < t.size() && t[rest] == '[') {
        size_t strideClose = matching(t, rest);
        if (strideClose == std::string_view::npos)
            return makeError(ErrorCode::ParseError, "the strides' '[' is not closed");
        auto stride = parseSizes(t.substr(rest + 1, strideClose - rest - 1), "strides");
        if (!stride)
            return stride.error();
        if (stride->size() != meta.shape.size())
            return makeError(ErrorCode::ParseError,
                std::to_string(stride->size()) + " strides for " + std::to_string(meta.shape.size()) + " sizes");
        meta.stride = std::move(stride.value());
        rest = strideClose + 1;
    }
    std::string_view device = trim(t.substr(rest));
    if (!device.empty()) {
        if (std::any_of(device.begin(), device.end(),
                [](char c) { return std::isspace((unsigned char)c) || c == '[' || c == ']' || c == '(' || c == ')'; }))
            return makeError(ErrorCode::ParseError,
                "unexpected text '" + std::string(device.substr(0, 40))
                    + "' after the sizes (expected a device such as 'cuda:0')");
        meta.device = std::string(device);
    } else {
        // print_readable() without include_device prints none: the device is unknown, not npu:0
        // (TensorMeta's default is for scenarios, which name theirs). Empty still counts as on the
        // device (TensorMeta::onDevice), and the writer prints the annotation without one again.
        meta.device.clear();
    }
    a.symbolic = meta.isSymbolic();
    a.tensors.push_back(std::move(meta));
    return a;
}

void collectRefs(const Arg& a, std::vector<const std::string*>& names, int depth)
{
    if (a.kind == Arg::Kind::NodeRef)
        names.push_back(&a.s);
    else if (a.kind == Arg::Kind::List && depth < kMaxNesting + 8)
        for (const Arg& item : a.items)
            collectRefs(item, names, depth + 1);
}

void collectNames(const Expr& e, const NameLookup& isNode, std::vector<std::string>& out)
{
    if (e.kind == Expr::Kind::Name && isNode(e.text))
        out.push_back(e.text);
    for (const Expr& k : e.kids)
        collectNames(k, isNode, out);
}

} // namespace

DiagnosticSink::DiagnosticSink(std::string path, std::vector<Diagnostic>& out)
    : m_path(std::move(path))
    , m_out(out)
{
}

void DiagnosticSink::warn(Position at, const std::string& message)
{
    if (m_out.size() >= kMaxDiagnostics) {
        ++m_dropped;
        return;
    }
    Diagnostic d;
    d.severity = Diagnostic::Severity::Warning;
    d.file = m_path;
    d.line = at.line;
    d.column = at.column;
    d.message = message;
    m_out.push_back(std::move(d));
}

void DiagnosticSink::finish()
{
    if (m_dropped == 0 || m_out.empty())
        return;
    Diagnostic d = m_out.back();
    d.message = std::to_string(m_dropped) + " further diagnostics were not recorded";
    m_out.push_back(std::move(d));
    m_dropped = 0;
}

Error DiagnosticSink::error(Position at, const std::string& message, ErrorCode code) const
{
    return makeError(code, message, m_path + ":" + std::to_string(at.line) + ":" + std::to_string(at.column));
}

bool isDTypeAbbreviation(std::string_view name)
{
    for (const auto& d : kDTypes)
        if (name == d.name)
            return true;
    for (const char* d : kUnmodelledDTypes)
        if (name == d)
            return true;
    return false;
}

Result<Annotation> parseAnnotation(std::string_view text, std::vector<std::string>& warnings)
{
    return parseAnnotationAt(text, warnings, 0);
}

std::vector<SymExpr> contiguousStrides(const std::vector<SymExpr>& shape)
{
    std::vector<SymExpr> out(shape.size());
    int64_t constant = 1;
    std::vector<std::string> factors;
    for (size_t i = shape.size(); i-- > 0;) {
        std::string text = std::to_string(constant);
        for (const auto& f : factors)
            text += "*" + f;
        auto e = SymExpr::parse(text);
        out[i] = e ? e.value() : SymExpr::constant(constant);
        if (auto v = shape[i].constantValue()) {
            // Saturate instead of overflowing: such a tensor fails storageBytes() later anyway.
            int64_t product = 0;
            constant = __builtin_mul_overflow(constant, *v, &product) ? std::numeric_limits<int64_t>::max() : product;
        } else if (factors.size() < 64) {
            const std::string& t = shape[i].text();
            bool simple
                = std::all_of(t.begin(), t.end(), [](char c) { return std::isalnum((unsigned char)c) || c == '_'; });
            factors.insert(factors.begin(), simple ? t : "(" + t + ")");
        }
    }
    return out;
}

std::string annotationText(const TensorMeta& t)
{
    std::string s = dtypeShortName(t.dtype) + "[";
    for (size_t i = 0; i < t.shape.size(); ++i)
        s += (i ? ", " : "") + t.shape[i].text();
    s += "][";
    const std::vector<SymExpr> stride = t.stride.empty() ? contiguousStrides(t.shape) : t.stride;
    for (size_t i = 0; i < stride.size(); ++i)
        s += (i ? ", " : "") + stride[i].text();
    return s + "]" + t.device;
}

bool equivalentMeta(const TensorMeta& a, const TensorMeta& b)
{
    auto texts = [](const std::vector<SymExpr>& v) {
        std::vector<std::string> out;
        for (const auto& e : v)
            out.push_back(e.text());
        return out;
    };
    if (a.dtype != b.dtype || a.device != b.device || a.storageOffset != b.storageOffset
        || texts(a.shape) != texts(b.shape))
        return false;
    return texts(a.stride.empty() ? contiguousStrides(a.shape) : a.stride)
        == texts(b.stride.empty() ? contiguousStrides(b.shape) : b.stride);
}

InputKind kindFromDynamoName(std::string_view name)
{
    // Case-insensitive, without a lowercase copy of every input's name.
    auto lower = [](char c) { return char(std::tolower(static_cast<unsigned char>(c))); };
    auto contains = [&](std::string_view needle) { // `needle` is lowercase
        return std::search(name.begin(), name.end(), needle.begin(), needle.end(), [&](char a, char b) {
            return lower(a) == b;
        }) != name.end();
    };
    if (name.size() < 2 || (lower(name[0]) != 'l' && lower(name[0]) != 'g') || name[1] != '_')
        return InputKind::UserInput;
    if (contains("_parameters_"))
        return InputKind::Parameter;
    if (contains("_buffers_"))
        return InputKind::Buffer;
    return InputKind::UserInput;
}

std::optional<InputKind> kindFromDescriptor(std::string_view comment)
{
    if (comment.find("ParamAOTInput(") != std::string_view::npos)
        return InputKind::Parameter;
    if (comment.find("BufferAOTInput(") != std::string_view::npos)
        return InputKind::Buffer;
    return std::nullopt;
}

bool kindFromDynamoName(Node& n, std::string_view name)
{
    const InputKind kind = kindFromDynamoName(name);
    if (kind == InputKind::UserInput)
        return false;
    n.inputKind = kind;
    n.inputKindFrom = "Dynamo's input name " + std::string(name)
        + (kind == InputKind::Parameter ? " (an nn.Module parameter)" : " (an nn.Module buffer)");
    return true;
}

bool kindFromDescriptor(Node& n, std::string_view comment)
{
    auto kind = kindFromDescriptor(comment);
    if (!kind)
        return false;
    while (!comment.empty() && (comment.front() == '#' || comment.front() == ' '))
        comment.remove_prefix(1);
    while (!comment.empty() && (comment.back() == ' ' || comment.back() == '\r'))
        comment.remove_suffix(1);
    constexpr size_t kMaxShown = 160;
    std::string shown(comment.substr(0, kMaxShown));
    if (comment.size() > kMaxShown)
        shown += "...";
    n.inputKind = *kind;
    n.inputKindFrom = "AOT's input descriptor " + shown;
    return true;
}

void symIntInput(Node& n, const std::string& evidence)
{
    n.inputKind = InputKind::SymInt;
    n.inputKindFrom = evidence;
}

std::vector<std::vector<int>> usersByName(const Graph& g, const std::map<std::string, int>& byName)
{
    std::vector<std::vector<int>> users(g.nodes.size());
    std::vector<const std::string*> names;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        names.clear();
        for (const Arg& a : g.nodes[i].args)
            collectRefs(a, names, 0);
        for (const auto& kw : g.nodes[i].kwargs)
            collectRefs(kw.second, names, 0);
        for (const std::string* n : names) {
            auto it = byName.find(*n);
            if (it == byName.end() || it->second < 0 || size_t(it->second) >= users.size())
                continue;
            auto& list = users[size_t(it->second)];
            if (list.empty() || list.back() != int(i))
                list.push_back(int(i));
        }
    }
    return users;
}

std::vector<TensorMeta> synthesizedOutputs(const Graph& g, int producer, const std::vector<std::vector<int>>& users)
{
    if (producer < 0 || size_t(producer) >= users.size())
        return {};
    return synthesizedOutputs(g, producer, users[size_t(producer)]);
}

std::vector<TensorMeta> synthesizedOutputs(const Graph& g, int producer, const std::vector<int>& producerUsers)
{
    std::vector<TensorMeta> out;
    std::vector<bool> known;
    if (producer < 0 || size_t(producer) >= g.nodes.size())
        return out;
    const std::string& name = g.nodes[size_t(producer)].name;
    for (int u : producerUsers) {
        if (u < 0 || size_t(u) >= g.nodes.size())
            continue;
        const Node& n = g.nodes[size_t(u)];
        if (n.op != NodeOp::CallFunction || n.target != "operator.getitem" || n.args.size() < 2
            || n.args[0].kind != Arg::Kind::NodeRef || n.args[0].s != name || n.args[1].kind != Arg::Kind::Int
            || n.args[1].i < 0 || n.args[1].i >= kMaxGetItemIndex || n.outputs.size() != 1)
            continue;
        size_t k = size_t(n.args[1].i);
        if (out.size() == k) { // the usual order: getitem 0, 1, 2, ...
            out.push_back(n.outputs[0]);
            known.push_back(true);
            continue;
        }
        if (out.size() < k) {
            TensorMeta gap;
            gap.shape = { SymExpr::constant(0) };
            gap.dtype = DType::Unknown;
            out.resize(k + 1, gap);
            known.resize(k + 1, false);
        }
        if (!known[k]) {
            out[k] = n.outputs[0];
            known[k] = true;
        }
    }
    return out;
}

std::string irTarget(const std::string& dotted)
{
    static const std::string prefix = "torch.ops.";
    return dotted.compare(0, prefix.size(), prefix) == 0 && dotted.size() > prefix.size() ? dotted.substr(prefix.size())
                                                                                          : dotted;
}

Arg exprToArg(const Expr& e, const NameLookup& isNode, ArgConversion& conv)
{
    Arg a;
    switch (e.kind) {
    case Expr::Kind::Name: {
        const std::string_view name = e.text; // compared by length first
        if (name == "None")
            return a;
        if (name == "True" || name == "False") {
            a.kind = Arg::Kind::Bool;
            a.b = name == "True";
            return a;
        }
        if (isNode(e.text))
            return Arg::ref(e.text);
        if (name == "Ellipsis") { // `x[(Ellipsis, slice(None, 4, None))]`: kept as its text, as slices are
            a.kind = Arg::Kind::Str;
            a.s = e.text;
            return a;
        }
        if (name == "inf" || name == "nan") {
            a.kind = Arg::Kind::Float;
            a.f = name == "inf" ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
            return a;
        }
        conv.unknownNames.push_back(e.text);
        conv.unknownOffsets.push_back(e.begin);
        return Arg::ref(e.text);
    }
    case Expr::Kind::Int:
        if (e.u <= uint64_t(std::numeric_limits<int64_t>::max()))
            return Arg::integer(int64_t(e.u));
        a.kind = Arg::Kind::Float;
        a.f = double(e.u);
        return a;
    case Expr::Kind::Float:
        a.kind = Arg::Kind::Float;
        a.f = e.f;
        return a;
    case Expr::Kind::Str:
        a.kind = Arg::Kind::Str;
        a.s = e.text;
        return a;
    case Expr::Kind::Tuple:
    case Expr::Kind::List: {
        std::vector<Arg> items;
        items.reserve(e.kids.size());
        for (const Expr& k : e.kids)
            items.push_back(exprToArg(k, isNode, conv));
        return Arg::list(std::move(items));
    }
    case Expr::Kind::Unary: {
        const Expr& x = e.kids[0];
        bool numeric = x.kind == Expr::Kind::Int || x.kind == Expr::Kind::Float
            || (x.kind == Expr::Kind::Name && (x.text == "inf" || x.text == "nan") && !isNode(x.text));
        if (numeric && (e.text == "-" || e.text == "+")) {
            const bool neg = e.text == "-";
            if (x.kind == Expr::Kind::Int && x.u <= uint64_t(std::numeric_limits<int64_t>::max()))
                return Arg::integer(neg ? -int64_t(x.u) : int64_t(x.u));
            if (x.kind == Expr::Kind::Int && neg && x.u == uint64_t(std::numeric_limits<int64_t>::max()) + 1)
                return Arg::integer(std::numeric_limits<int64_t>::min());
            Arg v = exprToArg(x, isNode, conv);
            v.f = neg ? -v.f : v.f;
            return v;
        }
        break;
    }
    default:
        break;
    }
    collectNames(e, isNode, conv.opaqueRefs);
    a.kind = Arg::Kind::Str;
    a.s = exprText(e);
    return a;
}

bool isOpaqueConstantText(const std::string& text)
{
    if (text.empty() || text.size() > 4096)
        return false;
    LineScanner scanner(text);
    LogicalLine line;
    if (!scanner.next(line) || line.kind != LogicalLine::Kind::Code || !line.problem.empty() || line.begin != 0
        || line.end != text.size())
        return false;
    LogicalLine extra;
    if (scanner.next(extra))
        return false;
    for (const Token& t : line.tokens)
        if (t.kind == Token::Kind::Comment)
            return false;
    ExprParser parser(line.tokens, 0, line.tokens.size());
    auto e = parser.expression();
    if (!e || !parser.atEnd())
        return false;
    ArgConversion conv;
    Arg a = exprToArg(
        *e, [](const std::string&) { return false; }, conv);
    // Operator expressions are quoted: unparenthesised they would bind differently inside operator sugar.
    return a.kind == Arg::Kind::Str && a.s == text && conv.unknownNames.empty() && e->kind != Expr::Kind::Str
        && e->kind != Expr::Kind::Binary && e->kind != Expr::Kind::Unary;
}

} // namespace engine::readers::detail
