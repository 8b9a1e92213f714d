#include "engine/core/py_value.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

using engine::parsePyLiteral;
using engine::PyValue;

namespace {

PyValue parsed(const std::string& text)
{
    auto r = parsePyLiteral(text);
    EXPECT_TRUE(r.ok()) << text << ": " << (r.ok() ? "" : r.error().toString());
    return r.ok() ? r.value() : PyValue {};
}

} // namespace

TEST(PyValueRepr, Scalars)
{
    EXPECT_EQ(PyValue::none().repr(), "None");
    EXPECT_EQ(PyValue::boolean(true).repr(), "True");
    EXPECT_EQ(PyValue::boolean(false).repr(), "False");
    EXPECT_EQ(PyValue::integer(-42).repr(), "-42");
    EXPECT_EQ(PyValue::integer(INT64_MAX).repr(), "9223372036854775807");
}

TEST(PyValueRepr, FloatsAsPythonPrintsThem)
{
    EXPECT_EQ(PyValue::real(1.0).repr(), "1.0");
    EXPECT_EQ(PyValue::real(-0.0).repr(), "-0.0");
    EXPECT_EQ(PyValue::real(0.1).repr(), "0.1");
    EXPECT_EQ(PyValue::real(0.1 + 0.2).repr(), "0.30000000000000004");
    EXPECT_EQ(PyValue::real(2.5).repr(), "2.5");
    EXPECT_EQ(PyValue::real(123456789.0).repr(), "123456789.0");
    EXPECT_EQ(PyValue::real(1e15).repr(), "1000000000000000.0");
    EXPECT_EQ(PyValue::real(1e16).repr(), "1e+16");
    EXPECT_EQ(PyValue::real(1.5e16).repr(), "1.5e+16");
    EXPECT_EQ(PyValue::real(1e22).repr(), "1e+22");
    EXPECT_EQ(PyValue::real(0.0001).repr(), "0.0001");
    EXPECT_EQ(PyValue::real(0.00001).repr(), "1e-05");
    EXPECT_EQ(PyValue::real(-2.5e-10).repr(), "-2.5e-10");
    EXPECT_EQ(PyValue::real(1.7976931348623157e308).repr(), "1.7976931348623157e+308");
    EXPECT_EQ(PyValue::real(5e-324).repr(), "5e-324");
    EXPECT_EQ(PyValue::real(std::numeric_limits<double>::infinity()).repr(), "inf");
    EXPECT_EQ(PyValue::real(-std::numeric_limits<double>::infinity()).repr(), "-inf");
    EXPECT_EQ(PyValue::real(std::nan("")).repr(), "nan");
}

TEST(PyValueRepr, StringsQuoteAndEscapeLikePython)
{
    EXPECT_EQ(PyValue::str("test").repr(), "'test'");
    EXPECT_EQ(PyValue::str("").repr(), "''");
    EXPECT_EQ(PyValue::str("it's").repr(), "\"it's\"");
    EXPECT_EQ(PyValue::str("both ' and \"").repr(), "'both \\' and \"'");
    EXPECT_EQ(PyValue::str("a\\b\n\t\x01").repr(), "'a\\\\b\\n\\t\\x01'");
    EXPECT_EQ(PyValue::str("héllo").repr(), "'héllo'");
}

TEST(PyValueRepr, Sequences)
{
    const PyValue pair = PyValue::tuple({ PyValue::integer(0), PyValue::integer(1) });
    EXPECT_EQ(pair.repr(), "(0, 1)");
    EXPECT_EQ(PyValue::tuple({ PyValue::integer(3) }).repr(), "(3,)");
    EXPECT_EQ(PyValue::tuple({}).repr(), "()");
    EXPECT_EQ(PyValue::list({}).repr(), "[]");
    EXPECT_EQ(PyValue::list({ PyValue::boolean(true), PyValue::boolean(false) }).repr(), "[True, False]");
    EXPECT_EQ(PyValue::list({ PyValue::str("a"), pair, PyValue::none(), PyValue::real(1.0) }).repr(),
        "['a', (0, 1), None, 1.0]");
}

TEST(PyValueStr, OnlyTopLevelStringsLoseQuotes)
{
    EXPECT_EQ(PyValue::str("abc").str(), "abc");
    EXPECT_EQ(PyValue::boolean(false).str(), "False");
    EXPECT_EQ(PyValue::real(64.0).str(), "64.0");
    EXPECT_EQ(PyValue::list({ PyValue::str("a") }).str(), "['a']");
    EXPECT_EQ(PyValue::tuple({ PyValue::integer(0), PyValue::integer(1) }).str(), "(0, 1)");
}

TEST(PyValueType, NamesAndReprs)
{
    EXPECT_EQ(PyValue::none().typeName(), "NoneType");
    EXPECT_EQ(PyValue::none().typeRepr(), "<class 'NoneType'>");
    EXPECT_EQ(PyValue::boolean(true).typeRepr(), "<class 'bool'>");
    EXPECT_EQ(PyValue::integer(1).typeRepr(), "<class 'int'>");
    EXPECT_EQ(PyValue::real(1).typeRepr(), "<class 'float'>");
    EXPECT_EQ(PyValue::str("x").typeRepr(), "<class 'str'>");
    EXPECT_EQ(PyValue::list({}).typeName(), "list");
    EXPECT_EQ(PyValue::tuple({}).typeName(), "tuple");
}

TEST(PyValueEquals, NumbersCompareAcrossBoolIntFloat)
{
    const PyValue t = PyValue::boolean(true), f = PyValue::boolean(false);
    EXPECT_TRUE(PyValue::integer(1).pyEquals(t));
    EXPECT_TRUE(t.pyEquals(PyValue::integer(1)));
    EXPECT_TRUE(PyValue::integer(0).pyEquals(f));
    EXPECT_FALSE(PyValue::integer(2).pyEquals(t));
    EXPECT_TRUE(PyValue::integer(1).pyEquals(PyValue::real(1.0)));
    EXPECT_TRUE(PyValue::real(0.0).pyEquals(f));
    EXPECT_TRUE(PyValue::real(-0.0).pyEquals(PyValue::integer(0)));
    EXPECT_FALSE(PyValue::real(1.5).pyEquals(PyValue::integer(1)));
    EXPECT_FALSE(PyValue::real(std::nan("")).pyEquals(PyValue::real(std::nan(""))));
    // Exact int/float comparison, as Python does: 2**53 + 1 != float(2**53).
    EXPECT_FALSE(PyValue::integer((int64_t(1) << 53) + 1).pyEquals(PyValue::real(9007199254740992.0)));
    EXPECT_TRUE(PyValue::integer(int64_t(1) << 53).pyEquals(PyValue::real(9007199254740992.0)));
}

TEST(PyValueEquals, OtherKinds)
{
    EXPECT_TRUE(PyValue::none().pyEquals(PyValue::none()));
    EXPECT_FALSE(PyValue::none().pyEquals(PyValue::boolean(false)));
    EXPECT_TRUE(PyValue::str("a").pyEquals(PyValue::str("a")));
    EXPECT_FALSE(PyValue::str("1").pyEquals(PyValue::integer(1)));
    EXPECT_TRUE(PyValue::list({ PyValue::integer(1) }).pyEquals(PyValue::list({ PyValue::boolean(true) })));
    EXPECT_FALSE(PyValue::list({ PyValue::integer(1) }).pyEquals(PyValue::tuple({ PyValue::integer(1) })));
    EXPECT_FALSE(PyValue::list({}).pyEquals(PyValue::list({ PyValue::integer(1) })));
}

TEST(PyValueTruthy, FollowsPython)
{
    EXPECT_FALSE(PyValue::none().truthy());
    EXPECT_FALSE(PyValue::boolean(false).truthy());
    EXPECT_FALSE(PyValue::integer(0).truthy());
    EXPECT_FALSE(PyValue::real(0.0).truthy());
    EXPECT_FALSE(PyValue::str("").truthy());
    EXPECT_FALSE(PyValue::list({}).truthy());
    EXPECT_TRUE(PyValue::str("0").truthy()); // why npugraph_ex's integer 0 does not turn options off
    EXPECT_TRUE(PyValue::integer(-1).truthy());
    EXPECT_TRUE(PyValue::real(std::nan("")).truthy());
    EXPECT_TRUE(PyValue::tuple({ PyValue::none() }).truthy());
}

TEST(ParsePyLiteral, Keywords)
{
    for (const char* t : { "True", "true", " True " }) {
        PyValue v = parsed(t);
        EXPECT_EQ(v.kind, PyValue::Kind::Bool);
        EXPECT_TRUE(v.b);
    }
    EXPECT_EQ(parsed("False").repr(), "False");
    EXPECT_EQ(parsed("false").repr(), "False");
    EXPECT_EQ(parsed("None").kind, PyValue::Kind::None);
    EXPECT_EQ(parsed("null").kind, PyValue::Kind::None);
    EXPECT_EQ(parsed("TRUE").repr(), "'TRUE'"); // neither Python nor JSON spelling: a bare string
}

TEST(ParsePyLiteral, Numbers)
{
    EXPECT_EQ(parsed("64").repr(), "64");
    EXPECT_EQ(parsed("64").kind, PyValue::Kind::Int);
    EXPECT_EQ(parsed("-3").repr(), "-3");
    EXPECT_EQ(parsed("+5").repr(), "5");
    EXPECT_EQ(parsed("0").repr(), "0");
    EXPECT_EQ(parsed("9223372036854775807").repr(), "9223372036854775807");
    EXPECT_EQ(parsed("1.5").kind, PyValue::Kind::Float);
    EXPECT_EQ(parsed("1.").repr(), "1.0");
    EXPECT_EQ(parsed(".5").repr(), "0.5");
    EXPECT_EQ(parsed("-2.5e3").repr(), "-2500.0");
    EXPECT_EQ(parsed("1e3").repr(), "1000.0");
    EXPECT_EQ(parsed("1E-5").repr(), "1e-05");
    // Not numeric literals in Python: kept as text.
    EXPECT_EQ(parsed("inf").repr(), "'inf'");
    EXPECT_EQ(parsed("1e").repr(), "'1e'");
    EXPECT_EQ(parsed("0x10").repr(), "'0x10'");
    EXPECT_EQ(parsed("-").repr(), "'-'");
}

TEST(ParsePyLiteral, IntegerOverflowIsAnError)
{
    auto r = parsePyLiteral("99999999999999999999");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, engine::ErrorCode::ParseError);
    EXPECT_NE(r.error().message.find("64 bits"), std::string::npos);
}

TEST(ParsePyLiteral, Strings)
{
    EXPECT_EQ(parsed("'quoted'").repr(), "'quoted'");
    EXPECT_EQ(parsed("\"double\"").repr(), "'double'");
    EXPECT_EQ(parsed("'True'").kind, PyValue::Kind::Str); // quotes keep keywords as text
    EXPECT_EQ(parsed("'64'").repr(), "'64'");
    EXPECT_EQ(parsed("'a\\'b'").s, "a'b");
    EXPECT_EQ(parsed("'a\\nb'").s, "a\nb");
    EXPECT_EQ(parsed("'a\\qb'").s, "a\\qb");
    EXPECT_EQ(parsed("bare").repr(), "'bare'");
    EXPECT_EQ(parsed("thread_local").s, "thread_local");
    EXPECT_EQ(parsed("/tmp/my dir").s, "/tmp/my dir");
    EXPECT_EQ(parsed("").repr(), "''");
    EXPECT_EQ(parsed("   ").repr(), "''");
}

TEST(ParsePyLiteral, ListsAndTuples)
{
    EXPECT_EQ(parsed("[1, 2]").repr(), "[1, 2]");
    EXPECT_EQ(parsed("[1, 2]").kind, PyValue::Kind::List);
    EXPECT_EQ(parsed("(0, 1)").repr(), "(0, 1)");
    EXPECT_EQ(parsed("(0, 1)").kind, PyValue::Kind::Tuple);
    EXPECT_EQ(parsed("[]").repr(), "[]");
    EXPECT_EQ(parsed("()").repr(), "()");
    EXPECT_EQ(parsed("(7,)").repr(), "(7,)");
    EXPECT_EQ(parsed("(7)").repr(), "7"); // parentheses alone make no tuple
    EXPECT_EQ(parsed("[1, 2,]").repr(), "[1, 2]");
    EXPECT_EQ(parsed("[ a , 'b c', None, true, -1.5 ]").repr(), "['a', 'b c', None, True, -1.5]");
    EXPECT_EQ(parsed("[[1, (2, 3)], ([],)]").repr(), "[[1, (2, 3)], ([],)]");
    EXPECT_EQ(parsed("['a,b', \"c]\"]").repr(), "['a,b', 'c]']");
}

TEST(ParsePyLiteral, MalformedInputIsAParseError)
{
    for (const char* bad : { "[1, 2", "(0, 1", "'open", "[1 2]", "[1,, 2]", "[1] x", "(,)", "[,]" }) {
        auto r = parsePyLiteral(bad);
        EXPECT_FALSE(r.ok()) << bad;
        if (!r.ok()) {
            EXPECT_EQ(r.error().code, engine::ErrorCode::ParseError) << bad;
        }
    }
}
