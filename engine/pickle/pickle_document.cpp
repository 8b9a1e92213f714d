#include "engine/pickle/pickle_document.h"

#include "engine/core/py_value.h"
#include "engine/core/text_codec.h"
#include "engine/pickle/pickle_text.h"

namespace engine::pickle {

namespace {

bool hasChildren(Kind k)
{
    switch (k) {
    case Kind::Tuple:
    case Kind::List:
    case Kind::Dict:
    case Kind::Set:
    case Kind::FrozenSet:
    case Kind::Global:
    case Kind::Object:
    case Kind::PersistentId:
        return true;
    default:
        return false;
    }
}

bool hasBytes(Kind k)
{
    return k == Kind::Str || k == Kind::Bytes || k == Kind::ByteArray || k == Kind::BigInt;
}

uint32_t slot(const Document& doc, uint32_t object, ObjectSlot s)
{
    const Value* v = doc.get(object);
    if (!v || v->kind != Kind::Object)
        return kNoValue;
    return doc.children[v->data + s];
}

const char kHex[] = "0123456789abcdef";

/// repr() with an output budget; every value prints at least one character, so a walk of a DAG
/// with exponentially many paths stops once the budget is spent.
class Printer {
public:
    Printer(const Document& doc, size_t maxChars)
        : m_doc(doc)
        , m_max(maxChars)
    {
    }

    std::string take()
    {
        if (m_out.size() > m_max) {
            size_t cut = m_max;
            while (cut > 0 && (static_cast<unsigned char>(m_out[cut]) & 0xC0) == 0x80)
                --cut; // not inside a UTF-8 sequence
            m_out.resize(cut);
            m_out += "...";
        }
        return std::move(m_out);
    }

    void value(uint32_t id, int depth);

private:
    bool full() const { return m_out.size() > m_max; }
    void quoted(std::string_view s, bool bytes) { appendPyQuoted(m_out, s, bytes, m_max); }
    void sequence(Ids ids, const char* open, const char* close, bool tupleComma, int depth);
    void dict(Ids ids, int depth);
    void object(uint32_t id, int depth);
    bool onPath(uint32_t id) const
    {
        for (uint32_t p : m_path)
            if (p == id)
                return true;
        return false;
    }

    const Document& m_doc;
    size_t m_max;
    std::string m_out;
    std::vector<uint32_t> m_path; ///< containers being printed, for cycles
};

void Printer::sequence(Ids ids, const char* open, const char* close, bool tupleComma, int depth)
{
    m_out += open;
    for (size_t k = 0; k < ids.size() && !full(); ++k) {
        if (k)
            m_out += ", ";
        value(ids[k], depth + 1);
    }
    if (tupleComma && ids.size() == 1)
        m_out += ',';
    m_out += close;
}

void Printer::dict(Ids ids, int depth)
{
    m_out += '{';
    for (size_t k = 0; k + 1 < ids.size() && !full(); k += 2) {
        if (k)
            m_out += ", ";
        value(ids[k], depth + 1);
        m_out += ": ";
        value(ids[k + 1], depth + 1);
    }
    m_out += '}';
}

/// A dict state prints as a dataclass does (`Name(field=value, ...)`); anything else as the call
/// that makes the object, the class qualified so that a foreign callable stands out.
void Printer::object(uint32_t id, int depth)
{
    const uint32_t cls = slot(m_doc, id, kObjClass);
    const uint32_t state = slot(m_doc, id, kObjState);
    bool dataclassLike = state != kNoValue && m_doc.at(state).kind == Kind::Dict;
    if (dataclassLike) {
        const Ids entries = m_doc.items(state);
        for (size_t k = 0; k < entries.size() && dataclassLike; k += 2)
            dataclassLike = m_doc.at(entries[k]).kind == Kind::Str;
    }
    if (dataclassLike && m_doc.at(cls).kind == Kind::Global)
        m_out += m_doc.str(m_doc.items(cls)[1]);
    else
        value(cls, depth + 1);
    m_out += '(';
    bool first = true;
    const auto comma = [&] {
        if (!first)
            m_out += ", ";
        first = false;
    };
    const auto keywords = [&](uint32_t d) {
        const Ids entries = m_doc.items(d);
        for (size_t k = 0; k + 1 < entries.size() && !full(); k += 2) {
            comma();
            if (m_doc.at(entries[k]).kind == Kind::Str) {
                m_out += m_doc.str(entries[k]);
            } else {
                value(entries[k], depth + 1); // NEWOBJ_EX keywords are strings in practice
            }
            m_out += '=';
            value(entries[k + 1], depth + 1);
        }
    };
    if (const uint32_t args = slot(m_doc, id, kObjArgs); args != kNoValue)
        for (uint32_t a : m_doc.items(args)) {
            if (full())
                break;
            comma();
            value(a, depth + 1);
        }
    if (const uint32_t kwargs = slot(m_doc, id, kObjKwargs); kwargs != kNoValue)
        keywords(kwargs);
    if (const uint32_t list = slot(m_doc, id, kObjListItems); list != kNoValue && !full()) {
        comma();
        value(list, depth + 1);
    }
    if (const uint32_t d = slot(m_doc, id, kObjDictItems); d != kNoValue && !full()) {
        comma();
        value(d, depth + 1);
    }
    if (dataclassLike) {
        keywords(state);
    } else if (state != kNoValue && !full()) {
        comma();
        m_out += "__state__=";
        value(state, depth + 1);
    }
    m_out += ')';
}

void Printer::value(uint32_t id, int depth)
{
    if (full())
        return;
    const Value* v = m_doc.get(id);
    if (!v) {
        m_out += "<no value>";
        return;
    }
    if (depth > 200) {
        m_out += "...";
        return;
    }
    if (hasChildren(v->kind) && v->kind != Kind::Global) {
        if (onPath(id)) {
            m_out += v->kind == Kind::List ? "[...]" : v->kind == Kind::Dict ? "{...}" : "...";
            return;
        }
        m_path.push_back(id);
    }
    const Ids ids = m_doc.items(id);
    switch (v->kind) {
    case Kind::None:
        m_out += "None";
        break;
    case Kind::Bool:
        m_out += v->boolean() ? "True" : "False";
        break;
    case Kind::Int:
        m_out += std::to_string(v->integer());
        break;
    case Kind::BigInt: {
        const std::string text = bigIntDecimal(m_doc, id);
        m_out += text.empty() ? "<int of " + std::to_string(v->size * 8) + " bits>" : text;
        break;
    }
    case Kind::Float:
        m_out += pyFloatRepr(v->real());
        break;
    case Kind::Str:
        quoted(m_doc.bytes(id), false);
        break;
    case Kind::Bytes:
        m_out += 'b';
        quoted(m_doc.bytes(id), true);
        break;
    case Kind::ByteArray:
        m_out += "bytearray(b";
        quoted(m_doc.bytes(id), true);
        m_out += ')';
        break;
    case Kind::Tuple:
        sequence(ids, "(", ")", true, depth);
        break;
    case Kind::List:
        sequence(ids, "[", "]", false, depth);
        break;
    case Kind::Dict:
        dict(ids, depth);
        break;
    case Kind::Set:
    case Kind::FrozenSet: {
        const bool frozen = v->kind == Kind::FrozenSet;
        if (ids.empty()) {
            m_out += frozen ? "frozenset()" : "set()";
            break;
        }
        m_out += frozen ? "frozenset(" : "";
        sequence(ids, "{", "}", false, depth);
        m_out += frozen ? ")" : "";
        break;
    }
    case Kind::Global:
        m_out += className(m_doc, id);
        break;
    case Kind::Object:
        object(id, depth);
        break;
    case Kind::PersistentId:
        m_out += "persistent_load(";
        value(ids[0], depth + 1);
        m_out += ')';
        break;
    case Kind::Extension:
        m_out += "<copyreg extension " + std::to_string(v->integer()) + ">";
        break;
    }
    if (hasChildren(v->kind) && v->kind != Kind::Global)
        m_path.pop_back();
}

} // namespace

Ids Document::items(uint32_t id) const
{
    const Value* v = get(id);
    if (!v || !hasChildren(v->kind))
        return {};
    return Ids { children.data() + v->data, v->size };
}

std::string_view Document::bytes(uint32_t id) const
{
    const Value* v = get(id);
    if (!v || !hasBytes(v->kind))
        return {};
    return std::string_view(text.data() + v->data, v->size);
}

std::string_view Document::str(uint32_t id) const
{
    const Value* v = get(id);
    return v && v->kind == Kind::Str ? bytes(id) : std::string_view();
}

bool Document::isStr(uint32_t id, std::string_view s) const
{
    const Value* v = get(id);
    return v && v->kind == Kind::Str && bytes(id) == s;
}

std::string Finding::label() const
{
    switch (what) {
    case What::Class:
        return module + "." + name;
    case What::Extension:
        return "copyreg extension " + name;
    case What::PersistentId:
        return "persistent id " + name;
    }
    return name;
}

const char* kindName(Kind kind)
{
    switch (kind) {
    case Kind::None:
        return "NoneType";
    case Kind::Bool:
        return "bool";
    case Kind::Int:
    case Kind::BigInt:
        return "int";
    case Kind::Float:
        return "float";
    case Kind::Str:
        return "str";
    case Kind::Bytes:
        return "bytes";
    case Kind::ByteArray:
        return "bytearray";
    case Kind::Tuple:
        return "tuple";
    case Kind::List:
        return "list";
    case Kind::Dict:
        return "dict";
    case Kind::Set:
        return "set";
    case Kind::FrozenSet:
        return "frozenset";
    case Kind::Global:
        return "global";
    case Kind::Object:
        return "object";
    case Kind::PersistentId:
        return "persistent id";
    case Kind::Extension:
        return "extension";
    }
    return "?";
}

uint32_t dictGet(const Document& doc, uint32_t dict, std::string_view key)
{
    const Value* v = doc.get(dict);
    if (!v || v->kind != Kind::Dict)
        return kNoValue;
    const Ids entries = doc.items(dict);
    for (size_t k = entries.size(); k >= 2; k -= 2)
        if (doc.isStr(entries[k - 2], key))
            return entries[k - 1];
    return kNoValue;
}

uint32_t field(const Document& doc, uint32_t object, std::string_view name)
{
    const uint32_t state = slot(doc, object, kObjState);
    if (state != kNoValue) {
        if (doc.at(state).kind == Kind::Dict)
            if (const uint32_t f = dictGet(doc, state, name); f != kNoValue)
                return f;
        // (dict state, slots state), what objects with __slots__ pickle.
        const Ids pair = doc.items(state);
        if (doc.at(state).kind == Kind::Tuple && pair.size() == 2)
            for (uint32_t part : pair)
                if (const uint32_t f = dictGet(doc, part, name); f != kNoValue)
                    return f;
    }
    return dictGet(doc, slot(doc, object, kObjKwargs), name);
}

std::string className(const Document& doc, uint32_t id)
{
    const Value* v = doc.get(id);
    // An object's class may itself be an object (a getattr result, ...): follow it to the Global.
    for (size_t hops = 0; v && v->kind == Kind::Object && hops < 1000; ++hops) {
        id = doc.children[v->data + kObjClass];
        v = doc.get(id);
    }
    if (!v || v->kind != Kind::Global)
        return {};
    const Ids names = doc.items(id);
    return std::string(doc.str(names[0])) + "." + std::string(doc.str(names[1]));
}

std::string bigIntDecimal(const Document& doc, uint32_t id, size_t maxDigits)
{
    const Value* v = doc.get(id);
    if (!v)
        return {};
    if (v->kind == Kind::Int)
        return std::to_string(v->integer());
    if (v->kind != Kind::BigInt)
        return {};
    return detail::twosComplementToDecimal(doc.bytes(id), maxDigits);
}

std::string repr(const Document& doc, uint32_t id, size_t maxChars)
{
    Printer p(doc, maxChars);
    p.value(id, 0);
    return p.take();
}

} // namespace engine::pickle
