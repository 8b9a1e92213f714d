#include "storage/sqlite.h"

#include <sqlite3.h>
#include <utility>

namespace storage {

void Database::Closer::operator()(sqlite3* db) const
{
    sqlite3_close_v2(db);
}
void Statement::Finalizer::operator()(sqlite3_stmt* s) const
{
    sqlite3_finalize(s);
}

Database::Database(sqlite3* db, std::string path)
    : m_db(db)
    , m_path(std::move(path))
{
}

Database::~Database() = default;

Error Database::error(const std::string& what) const
{
    return Error { ErrorCode::Io, what + ": " + (m_db ? sqlite3_errmsg(m_db.get()) : "no database"), m_path };
}

Result<Database> Database::open(const std::string& path, const OpenOptions& options)
{
    sqlite3* raw = nullptr;
    int flags = options.readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
    if (options.create && !options.readOnly)
        flags |= SQLITE_OPEN_CREATE;
    const int rc = sqlite3_open_v2(path.c_str(), &raw,
        flags | (options.sharedAcrossThreads ? SQLITE_OPEN_FULLMUTEX : SQLITE_OPEN_NOMUTEX), nullptr);
    Database db(raw, path);
    if (rc != SQLITE_OK)
        return db.error("cannot open the project database");
    sqlite3_extended_result_codes(raw, 1);
    sqlite3_busy_timeout(raw, options.busyTimeoutMs);
    // The first read tells a file that is not SQLite (or is corrupt) before anything is written.
    if (auto r = db.exec("SELECT count(*) FROM sqlite_schema"); !r)
        return Error { ErrorCode::InvalidArgument, "not a project database (" + r.error().message + ")", path };
    if (auto r = db.exec("PRAGMA foreign_keys=ON"); !r)
        return r.error();
    if (path != ":memory:" && !path.empty() && !options.readOnly)
        if (auto r = db.exec("PRAGMA journal_mode=WAL"); !r)
            return r.error();
    return db;
}

Result<void> Database::exec(const std::string& sql)
{
    char* message = nullptr;
    if (sqlite3_exec(m_db.get(), sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
        Error e { ErrorCode::Io, message ? message : sqlite3_errmsg(m_db.get()), m_path };
        sqlite3_free(message);
        return e;
    }
    return {};
}

Result<Statement> Database::prepare(const std::string& sql)
{
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(m_db.get(), sql.c_str(), int(sql.size()), &s, nullptr) != SQLITE_OK)
        return error("cannot prepare '" + sql.substr(0, 60) + "'");
    return Statement(s, m_path);
}

Result<int> Database::userVersion()
{
    return pragmaInt("user_version");
}

Result<int> Database::pragmaInt(const std::string& name)
{
    auto s = prepare("PRAGMA " + name);
    if (!s)
        return s.error();
    auto row = s->step();
    if (!row)
        return row.error();
    return int(s->columnInt(0));
}

Result<void> Database::setUserVersion(int version)
{
    return exec("PRAGMA user_version=" + std::to_string(version));
}

Result<std::string> Database::quickCheck()
{
    auto s = prepare("PRAGMA quick_check");
    if (!s)
        return s.error();
    std::string report;
    for (;;) {
        auto row = s->step();
        if (!row)
            return row.error();
        if (!*row)
            break;
        const std::string line = s->columnText(0);
        if (line != "ok")
            report += line + "\n";
    }
    return report;
}

int64_t Database::lastInsertRowId() const
{
    return sqlite3_last_insert_rowid(m_db.get());
}
int Database::changes() const
{
    return sqlite3_changes(m_db.get());
}

Error Statement::error(const std::string& what) const
{
    return Error { ErrorCode::Io, what + ": " + sqlite3_errmsg(sqlite3_db_handle(m_stmt.get())), m_path };
}

namespace {

void noteBind(int rc, bool& failed, Error& error, const std::string& path, int index)
{
    if (rc != SQLITE_OK && !failed) {
        failed = true;
        error = Error { ErrorCode::Internal,
            "cannot bind parameter " + std::to_string(index) + ": " + sqlite3_errstr(rc), path };
    }
}

} // namespace

Statement& Statement::bind(int index, int64_t value)
{
    noteBind(sqlite3_bind_int64(m_stmt.get(), index, value), m_bindFailed, m_bindError, m_path, index);
    return *this;
}

Statement& Statement::bind(int index, double value)
{
    noteBind(sqlite3_bind_double(m_stmt.get(), index, value), m_bindFailed, m_bindError, m_path, index);
    return *this;
}

Statement& Statement::bind(int index, std::string_view text)
{
    noteBind(sqlite3_bind_text64(m_stmt.get(), index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8),
        m_bindFailed, m_bindError, m_path, index);
    return *this;
}

Statement& Statement::bindBlob(int index, std::string_view bytes)
{
    noteBind(sqlite3_bind_blob64(m_stmt.get(), index, bytes.data(), bytes.size(), SQLITE_TRANSIENT), m_bindFailed,
        m_bindError, m_path, index);
    return *this;
}

Statement& Statement::bindNull(int index)
{
    noteBind(sqlite3_bind_null(m_stmt.get(), index), m_bindFailed, m_bindError, m_path, index);
    return *this;
}

Result<bool> Statement::step()
{
    if (m_bindFailed)
        return m_bindError;
    const int rc = sqlite3_step(m_stmt.get());
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    return error("statement failed");
}

Result<void> Statement::run()
{
    for (;;) {
        auto row = step();
        if (!row)
            return row.error();
        if (!*row)
            return {};
    }
}

void Statement::reset()
{
    sqlite3_reset(m_stmt.get());
    sqlite3_clear_bindings(m_stmt.get());
    m_bindFailed = false;
}

int64_t Statement::columnInt(int index) const
{
    return sqlite3_column_int64(m_stmt.get(), index);
}
double Statement::columnDouble(int index) const
{
    return sqlite3_column_double(m_stmt.get(), index);
}
bool Statement::columnIsNull(int index) const
{
    return sqlite3_column_type(m_stmt.get(), index) == SQLITE_NULL;
}

int Statement::columnCount() const
{
    return sqlite3_column_count(m_stmt.get());
}

std::string Statement::columnText(int index) const
{
    const auto* text = sqlite3_column_text(m_stmt.get(), index);
    return text ? std::string(reinterpret_cast<const char*>(text), size_t(sqlite3_column_bytes(m_stmt.get(), index)))
                : std::string();
}

std::string Statement::columnBlob(int index) const
{
    const void* bytes = sqlite3_column_blob(m_stmt.get(), index);
    return bytes ? std::string(static_cast<const char*>(bytes), size_t(sqlite3_column_bytes(m_stmt.get(), index)))
                 : std::string();
}

Result<Transaction> Transaction::begin(Database& db)
{
    if (auto r = db.exec("BEGIN IMMEDIATE"); !r)
        return r.error();
    return Transaction(db.handle(), db.path());
}

Transaction::Transaction(Transaction&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr))
    , m_path(std::move(other.m_path))
{
}

Transaction::~Transaction()
{
    if (m_db)
        sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
}

Result<void> Transaction::commit()
{
    if (!m_db)
        return Error { ErrorCode::Internal, "the transaction is over", m_path };
    if (sqlite3_exec(m_db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK)
        return Error { ErrorCode::Io, std::string("cannot commit: ") + sqlite3_errmsg(m_db), m_path };
    m_db = nullptr;
    return {};
}

} // namespace storage
