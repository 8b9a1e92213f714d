#include "engine/graph/op_table.h"

#include "engine/core/bracket_text.h"
#include "engine/graph/op_info.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>

namespace engine {

namespace {

struct Row {
    const char* schema;
    const char* tags;
};

#define ACLGI_OP_TABLE_SOURCE(source, pytorch, npu)                                                                    \
    constexpr const char* kSource = source;                                                                            \
    constexpr int kPytorchSchemas = pytorch;                                                                           \
    constexpr int kNpuSchemas = npu;                                                                                   \
    const Row kRows[] = {
#define ACLGI_OP(schema, tags) { schema, tags },
#include "engine/graph/op_table_data.inc"
}; // namespace
#undef ACLGI_OP
#undef ACLGI_OP_TABLE_SOURCE

std::string trim(std::string_view s)
{
    return std::string(bracket::trim(s));
}

// The first '=' outside parentheses and brackets (a default), or npos.
size_t defaultSign(std::string_view s)
{
    int depth = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '(' || s[i] == '[')
            ++depth;
        else if (s[i] == ')' || s[i] == ']')
            --depth;
        else if (s[i] == '=' && depth == 0)
            return i;
    }
    return std::string_view::npos;
}

// "Tensor(a!)[]" -> type "Tensor[]", alias "a!". A parenthesised group after a type constructor
// (Dict, Tuple, Future, ...) holds type parameters and stays; one after a type is an alias annotation.
bool splitAlias(const std::string& decl, std::string& type, std::string& alias)
{
    static const char* const constructors[]
        = { "Dict", "Tuple", "Future", "RRef", "Await", "Union", "Optional", "List" };
    type.clear();
    alias.clear();
    for (size_t i = 0; i < decl.size(); ++i) {
        if (decl[i] != '(') {
            type += decl[i];
            continue;
        }
        const size_t end = bracket::matching(decl, i);
        if (end == std::string::npos)
            return false;
        size_t word = type.size();
        while (word > 0 && (std::isalnum(static_cast<unsigned char>(type[word - 1])) || type[word - 1] == '_'))
            --word;
        const std::string before = type.substr(word);
        const bool parameters
            = std::find(std::begin(constructors), std::end(constructors), before) != std::end(constructors);
        if (parameters) {
            type += decl.substr(i, end - i + 1);
        } else if (alias.empty()) {
            alias = trim(std::string_view(decl).substr(i + 1, end - i - 1));
        }
        i = end;
    }
    type = trim(type);
    return true;
}

struct Table {
    std::vector<OpSchema> schemas;
    std::unordered_map<std::string, const OpSchema*> byTarget;
    std::map<std::pair<std::string, std::string>, std::vector<const OpSchema*>> byPacket;
    OpTableInfo info;
};

const Table& table()
{
    static const Table t = [] {
        Table out;
        out.schemas.reserve(std::size(kRows));
        for (const Row& row : kRows) {
            OpSchema s;
            std::string error;
            if (!parseOpSchema(row.schema, s, error))
                continue; // scripts.op_table and OpTable.EveryRowParses keep this from happening
            std::string_view tags = row.tags;
            while (!tags.empty()) {
                const size_t space = tags.find(' ');
                s.tags.emplace_back(tags.substr(0, space));
                tags = space == std::string_view::npos ? std::string_view() : tags.substr(space + 1);
            }
            out.schemas.push_back(std::move(s));
        }
        for (const OpSchema& s : out.schemas) {
            out.byTarget.emplace(s.target, &s);
            out.byPacket[{ s.ns, s.packet }].push_back(&s);
        }
        out.info.source = kSource;
        out.info.pytorchSchemas = kPytorchSchemas;
        out.info.npuSchemas = kNpuSchemas;
        out.info.size = out.schemas.size();
        return out;
    }();
    return t;
}

} // namespace engine

const SchemaArg* OpSchema::arg(const std::string& name) const
{
    for (const SchemaArg& a : args)
        if (a.name == name)
            return &a;
    return nullptr;
}

bool OpSchema::hasTag(std::string_view tag) const
{
    return std::find(tags.begin(), tags.end(), tag) != tags.end();
}

bool parseOpSchema(const std::string& text, OpSchema& s, std::string& error)
{
    s = OpSchema();
    s.text = text;
    const size_t open = text.find('(');
    const size_t colons = text.find("::");
    if (open == std::string::npos || colons == std::string::npos || colons > open) {
        error = "not a schema: expected NAMESPACE::NAME(ARGUMENTS) -> RETURNS";
        return false;
    }
    const std::string name = text.substr(0, open);
    s.ns = trim(std::string_view(name).substr(0, colons));
    const std::string rest = name.substr(colons + 2);
    const size_t dot = rest.find('.');
    s.packet = trim(std::string_view(rest).substr(0, dot));
    s.overload = dot == std::string::npos ? "default" : trim(std::string_view(rest).substr(dot + 1));
    if (s.ns.empty() || s.packet.empty() || s.overload.empty()) {
        error = "offset 0: the name '" + name + "' is not NAMESPACE::NAME[.OVERLOAD]";
        return false;
    }
    s.target = s.ns + "." + s.packet + "." + s.overload;
    const size_t close = bracket::matching(text, open);
    if (close == std::string::npos) {
        error = "offset " + std::to_string(open) + ": the argument list is not closed";
        return false;
    }
    const size_t arrow = text.find("->", close);
    s.returns = arrow == std::string::npos ? std::string() : trim(std::string_view(text).substr(arrow + 2));
    const std::string inner = trim(std::string_view(text).substr(open + 1, close - open - 1));
    if (inner == "...") {
        s.varargs = true;
        return true;
    }
    bool kwargOnly = false;
    for (std::string_view piece : bracket::splitTopLevel(inner)) {
        const std::string part(piece);
        if (part == "*") {
            kwargOnly = true;
            continue;
        }
        if (part == "...") { // more arguments of any kind follow (aten::format(str self, ...))
            s.varargs = true;
            continue;
        }
        SchemaArg a;
        a.kwargOnly = kwargOnly;
        std::string decl = part;
        if (const size_t eq = defaultSign(decl); eq != std::string::npos) {
            a.hasDefault = true;
            a.defaultValue = trim(std::string_view(decl).substr(eq + 1));
            decl = trim(std::string_view(decl).substr(0, eq));
        }
        const size_t space = decl.rfind(' ');
        if (space == std::string::npos) {
            error = "argument '" + part + "': expected TYPE NAME";
            return false;
        }
        a.name = decl.substr(space + 1);
        if (!splitAlias(trim(std::string_view(decl).substr(0, space)), a.type, a.alias)) {
            error = "argument '" + part + "': an unclosed parenthesis in its type";
            return false;
        }
        a.writes = a.alias.find('!') != std::string::npos;
        if (s.args.empty() && !a.alias.empty() && !a.writes)
            s.view = true;
        s.mutates = s.mutates || a.writes;
        s.args.push_back(std::move(a));
    }
    return true;
}

namespace {

thread_local const UserOps* t_userOps = nullptr;

std::string canonicalSchemaTarget(const std::string& target)
{
    std::string t = target;
    if (const size_t colons = t.find("::"); colons != std::string::npos) {
        t.replace(colons, 2, ".");
        if (t.find('.', colons + 1) == std::string::npos)
            t += ".default";
    }
    t = canonicalTarget(t);
    if (std::count(t.begin(), t.end(), '.') == 1)
        t += ".default"; // FX prints a packet for its default overload, in every namespace
    return t;
}

} // namespace

bool UserOps::addSchema(const std::string& text, std::string& error)
{
    OpSchema s;
    if (!parseOpSchema(text, s, error))
        return false;
    if (table().byTarget.count(s.target)) {
        error = s.target + " is already in the operator table (" + table().byTarget.at(s.target)->text + ")";
        return false;
    }
    for (const OpSchema& other : m_schemas)
        if (other.target == s.target) {
            error = s.target + " is declared twice";
            return false;
        }
    m_schemas.push_back(std::move(s));
    return true;
}

void UserOps::addInplaceable(Inplaceable op)
{
    // register_inplaceable_npu_op stores into a dict: a later registration of the same op replaces it.
    op.functional = canonicalSchemaTarget(op.functional);
    op.inplace = canonicalSchemaTarget(op.inplace);
    for (Inplaceable& existing : m_inplaceable)
        if (existing.functional == op.functional) {
            existing = std::move(op);
            return;
        }
    m_inplaceable.push_back(std::move(op));
}

void UserOps::finish()
{
    m_byTarget.clear();
    m_byPacket.clear();
    for (const OpSchema& s : m_schemas) {
        m_byTarget.emplace(s.target, &s);
        std::vector<const OpSchema*>& list = m_byPacket[{ s.ns, s.packet }];
        if (list.empty()) {
            auto it = table().byPacket.find({ s.ns, s.packet });
            if (it != table().byPacket.end())
                list = it->second;
        }
        list.push_back(&s);
    }
    for (auto& entry : m_byPacket)
        std::sort(entry.second.begin(), entry.second.end(),
            [](const OpSchema* a, const OpSchema* b) { return a->overload < b->overload; });
}

const OpSchema* UserOps::find(const std::string& canonical) const
{
    auto it = m_byTarget.find(canonical);
    return it == m_byTarget.end() ? nullptr : it->second;
}

const std::vector<const OpSchema*>* UserOps::overloads(const std::string& ns, const std::string& packet) const
{
    auto it = m_byPacket.find({ ns, packet });
    return it == m_byPacket.end() ? nullptr : &it->second;
}

UserOpsScope::UserOpsScope(const UserOps* ops)
    : m_previous(t_userOps)
{
    t_userOps = ops;
}

UserOpsScope::~UserOpsScope()
{
    t_userOps = m_previous;
}

const UserOps* activeUserOps()
{
    return t_userOps;
}

const OpSchema* findOpSchema(const std::string& target)
{
    const std::string t = canonicalSchemaTarget(target);
    const Table& tab = table();
    auto it = tab.byTarget.find(t);
    if (it != tab.byTarget.end())
        return it->second;
    return t_userOps ? t_userOps->find(t) : nullptr;
}

const std::vector<const OpSchema*>& opOverloads(const std::string& ns, const std::string& packet)
{
    static const std::vector<const OpSchema*> none;
    if (t_userOps)
        if (const auto* merged = t_userOps->overloads(ns, packet))
            return *merged;
    const Table& tab = table();
    auto it = tab.byPacket.find({ ns, packet });
    return it == tab.byPacket.end() ? none : it->second;
}

const OpTableInfo& opTableInfo()
{
    return table().info;
}

} // namespace engine
