#pragma once
/// The value tree of a pickle, as engine::pickle::readPickle (pickle_reader.h) decodes it without
/// importing or calling anything.
///
/// Layout. Every value is a 16-byte `Value` in `Document::values`, addressed by its index, the
/// value's *id*. Containers, objects and class references list their children as ids in one shared
/// array (`Document::children`); strings, bytes and big integers keep their bytes in one shared
/// buffer (`Document::text`). Nothing is reference-counted and a document is three vectors, so a
/// memory snapshot of a gigabyte reads without a per-value allocation.
///
/// Sharing. A memo GET (BINGET, ...) yields the id the memo PUT stored: an object pickled twice is
/// one value with two parents, so the tree is a DAG. BUILD, APPEND and SETITEM(S) through the memo
/// can even make it cyclic (a list that contains itself). None, True and False are one value each,
/// as they are one object each in Python. Consumers must therefore never copy
/// values "by value" and must guard recursion: repr() does, `Document::hasCycles` says whether
/// there is a cycle at all, and `Document::depth` (Value::height) bounds the nesting: exactly when
/// there is no cycle; with one, a walk that enters the cycle elsewhere than the reader's walk did
/// can go deeper, so a recursion must also cap its depth (repr() stops at 200 levels).
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace engine::pickle {

/// "No value": an absent child (an object without BUILD state, a missing dict key).
constexpr uint32_t kNoValue = UINT32_MAX;

enum class Kind : uint8_t {
    None,
    Bool,
    Int, ///< fits in int64
    BigInt, ///< any longer integer: its two's-complement little-endian bytes (bigIntDecimal for text)
    Float,
    Str, ///< UTF-8 (lone surrogates kept as Python's 'surrogatepass' writes them)
    Bytes, ///< also Python 2 strings (STRING, BINSTRING, SHORT_BINSTRING) that are not ASCII
    ByteArray,
    Tuple,
    List,
    Dict, ///< children are key, value, key, value, ...; a repeated key stays (the last one wins)
    Set,
    FrozenSet,
    Global, ///< a class or function reference: children = [module (Str), name (Str)]
    Object, ///< REDUCE / NEWOBJ / NEWOBJ_EX / INST / OBJ result; see ObjectSlot
    PersistentId, ///< PERSID / BINPERSID: children = [the persistent id]
    Extension, ///< EXT1 / EXT2 / EXT4: a copyreg extension code, unresolved (Value::integer())
};

/// How an Object was made.
enum class ObjectHow : uint8_t { Reduce, NewObj, NewObjEx, Inst, Obj };

/// The children of an Object, in this order; absent ones are kNoValue.
enum ObjectSlot : uint32_t {
    kObjClass, ///< the callable or class: usually a Global, else any value (an Extension, ...)
    kObjArgs, ///< a Tuple
    kObjKwargs, ///< NEWOBJ_EX's Dict
    kObjState, ///< the BUILD state (the last BUILD, when there are several)
    kObjListItems, ///< a List of what APPEND(S) added to the object (a list subclass)
    kObjDictItems, ///< a Dict of what SETITEM(S) added to the object (OrderedDict, defaultdict, ...)
    kObjSlotCount
};

/// One decoded value; 16 bytes. Read the payload through the accessors and Document.
struct Value {
    Kind kind = Kind::None;
    ObjectHow how = ObjectHow::Reduce; ///< Object only
    /// Values reachable from the root: how deep they nest (1 for a scalar or an empty container,
    /// 1 + the highest child otherwise; a cycle's back edge does not count), at most
    /// Limits::maxDepth. 0 for values the root does not reach (popped, or only in the memo).
    uint16_t height = 0;
    /// Str/Bytes/ByteArray/BigInt: length in bytes; containers, Global, Object, PersistentId: the
    /// number of children (a Dict has 2 per entry).
    uint32_t size = 0;
    /// Int/Bool/Extension: the integer; Float: its bits; Str/Bytes/ByteArray/BigInt: offset into
    /// Document::text; the others: offset into Document::children.
    uint64_t data = 0;

    int64_t integer() const { return int64_t(data); }
    bool boolean() const { return data != 0; }
    double real() const
    {
        double d;
        std::memcpy(&d, &data, sizeof d);
        return d;
    }
};
static_assert(sizeof(Value) == 16, "Value stays small: memory snapshots have hundreds of millions");

/// A range of child ids.
struct Ids {
    const uint32_t* first = nullptr;
    size_t count = 0;
    const uint32_t* begin() const { return first; }
    const uint32_t* end() const { return first + count; }
    size_t size() const { return count; }
    bool empty() const { return count == 0; }
    uint32_t operator[](size_t i) const { return first[i]; }
};

/// A class reference outside the allow-list (or an extension code or persistent id, which name
/// code the reader cannot see). Python's strict unpickler would refuse the file on the first one.
struct Finding {
    enum class What { Class, Extension, PersistentId };
    What what = What::Class;
    std::string module; ///< Class only
    std::string name; ///< Class: the name; Extension: the code; PersistentId: repr of the id
    uint64_t offset = 0; ///< byte offset of the first opcode that named it
    uint32_t count = 0; ///< how many opcodes named it
    uint32_t value = kNoValue; ///< the first Global / Extension / PersistentId value

    /// "os.system", "copyreg extension 42", "persistent id 'storage'".
    std::string label() const;
};

/// A recoverable oddity (bytes after STOP, values left on the stack).
struct Warning {
    uint64_t offset = 0;
    std::string message;
};

struct Document {
    std::vector<Value> values;
    std::vector<uint32_t> children;
    std::string text;
    uint32_t root = kNoValue;
    /// PROTO's argument, or the highest protocol of the opcodes used (0 or 1) when there is none.
    int protocol = 0;
    uint64_t stopOffset = 0; ///< where STOP was
    std::vector<Finding> findings; ///< in the order first seen; one per distinct class
    std::vector<Warning> warnings;
    bool hasCycles = false; ///< some value contains itself (through the memo)
    uint32_t depth = 0; ///< the longest chain of nested values, ignoring cycles' back edges

    const Value& at(uint32_t id) const { return values[id]; }
    /// The value, or nullptr for kNoValue.
    const Value* get(uint32_t id) const { return id < values.size() ? &values[id] : nullptr; }
    /// The children of a container, Global, Object or PersistentId (empty for the others).
    Ids items(uint32_t id) const;
    /// The bytes of a Str, Bytes, ByteArray or BigInt (empty for the others).
    std::string_view bytes(uint32_t id) const;
    /// A Str's text, or empty when `id` is no Str.
    std::string_view str(uint32_t id) const;
    bool isStr(uint32_t id, std::string_view s) const;
};

/// "list", "dict", "int", ... (Python's type names; Global: "global", Object: "object").
const char* kindName(Kind kind);

/// The value of a Dict entry whose key is the Str `key` (the last such entry), or kNoValue.
uint32_t dictGet(const Document& doc, uint32_t dict, std::string_view key);

/// getattr for an inert object: the Object's BUILD state entry `name` (a dict state, or the
/// (dict, slots) pair objects with __slots__ use), else its NEWOBJ_EX keyword argument, else
/// kNoValue.
uint32_t field(const Document& doc, uint32_t object, std::string_view name);

/// "module.name" of a Global, or of an Object's class when that is a Global; else empty.
std::string className(const Document& doc, uint32_t id);

/// A BigInt in decimal ("-123..."); empty when it has more than `maxDigits` digits (Python refuses
/// more than 4300 by default).
std::string bigIntDecimal(const Document& doc, uint32_t id, size_t maxDigits = 4300);

/// Python-like text for display, at most about `maxChars` characters ("..." marks a cut):
/// `[1, 'a', b'\x00', (2,), {'k': None}]`, an Object with a dict state as a dataclass prints
/// (`ModelCacheMeta(name='x', date='d', version='1.0.5')`), any other Object as the call that
/// would make it (`os.system('echo hi')`), a Global as `module.name`. A value inside itself prints
/// as `[...]` / `{...}` / `...` as Python does; nesting beyond 200 levels prints `...`.
std::string repr(const Document& doc, uint32_t id, size_t maxChars = 4096);

} // namespace engine::pickle
