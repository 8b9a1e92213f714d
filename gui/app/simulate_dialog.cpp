// The Simulate… dialog and its worker (simulate_dialog.h).
#include "gui/app/simulate_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace gui {

namespace {

QLabel* wrapped(const QString& text)
{
    auto* label = new QLabel(text);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

} // namespace

SimulateDialog::SimulateDialog(const storage::SimulatableSource& source, const QString& dbPath, QWidget* parent)
    : QDialog(parent)
    , m_source(source)
    , m_dbPath(dbPath)
{
    setWindowTitle(tr("Simulate"));
    auto* form = new QFormLayout;
    form->addRow(tr("File:"), wrapped(QString::fromStdString(source.path)));
    form->addRow(tr("Kind:"), new QLabel(QString::fromStdString(source.kind)));

    m_calls = new QSpinBox;
    m_calls->setRange(1, 1000000);
    m_calls->setValue(2);
    m_calls->setToolTip(tr("Rounds of calls: each calls every graph of the file once (a scenario has its own "
                           "calls and ignores this)"));
    form->addRow(tr("&Calls:"), m_calls);

    for (const std::string& sym : source.symbols) {
        auto* edit = new QLineEdit;
        edit->setValidator(new QRegularExpressionValidator(QRegularExpression("-?[0-9]{1,18}"), edit));
        const auto meaning = source.symbolMeanings.find(sym);
        edit->setPlaceholderText(meaning == source.symbolMeanings.end()
                ? tr("a whole number")
                : tr("a whole number: %1").arg(QString::fromStdString(meaning->second)));
        edit->setObjectName("symbol_" + QString::fromStdString(sym));
        connect(edit, &QLineEdit::textChanged, this, &SimulateDialog::updateReady);
        m_symbols.insert(QString::fromStdString(sym), edit);
        form->addRow(QString::fromStdString(sym) + " =", edit);
    }

    m_inputKinds = new QLineEdit;
    m_inputKinds->setObjectName("inputKinds");
    m_inputKinds->setPlaceholderText(tr("optional: #0-3=parameter; x=user_input"));
    m_inputKinds->setToolTip(tr("What each graph input is, as simulate --input-kind: SEL=KIND, several separated by "
                                "';'. SEL is input names, #N, #N-M or *; KIND is parameter, buffer, static_address "
                                "or user_input"));
    form->addRow(tr("&Input kinds:"), m_inputKinds);

    m_problem = wrapped(QString());
    m_problem->setObjectName("problem");
    m_problem->setStyleSheet("color: #b00020;");
    auto* note
        = wrapped(tr("The run uses the file's own TorchAir options. To see what other options would do, "
                     "change them afterwards in the Config view: each change is a what-if run next to this one."));
    note->setObjectName("note");

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    m_buttons->addButton(tr("&Simulate"), QDialogButtonBox::AcceptRole);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(note);
    layout->addWidget(m_buttons);
    if (!source.simulatable) {
        m_problem->setText(tr("Cannot be simulated: %1").arg(QString::fromStdString(source.why)));
        for (QWidget* w : std::initializer_list<QWidget*> { m_calls, m_inputKinds })
            w->setEnabled(false);
        for (QLineEdit* e : m_symbols)
            e->setEnabled(false);
    }
    updateReady();
    setMinimumWidth(520);
}

bool SimulateDialog::ready() const
{
    if (!m_source.simulatable)
        return false;
    for (const QLineEdit* e : m_symbols)
        if (!e->hasAcceptableInput())
            return false;
    return true;
}

void SimulateDialog::updateReady()
{
    QPushButton* simulate = nullptr;
    for (QAbstractButton* b : m_buttons->buttons())
        if (m_buttons->buttonRole(b) == QDialogButtonBox::AcceptRole)
            simulate = qobject_cast<QPushButton*>(b);
    if (simulate) {
        simulate->setEnabled(ready());
        simulate->setDefault(true);
    }
    if (m_source.simulatable) {
        QStringList missing;
        for (auto it = m_symbols.begin(); it != m_symbols.end(); ++it)
            if (!it.value()->hasAcceptableInput())
                missing << it.key();
        m_problem->setText(missing.isEmpty()
                ? QString()
                : tr("The graphs' sizes use %1: give a value to simulate.").arg(missing.join(", ")));
        m_problem->setVisible(!missing.isEmpty());
    }
}

storage::SimulateSourceRequest SimulateDialog::request() const
{
    storage::SimulateSourceRequest r;
    r.dbPath = m_dbPath.toStdString();
    r.sourceId = m_source.sourceId;
    r.cacheEntryId = m_source.cacheEntryId;
    r.calls = m_calls->value();
    for (auto it = m_symbols.begin(); it != m_symbols.end(); ++it)
        if (it.value()->hasAcceptableInput())
            r.symbols[it.key().toStdString()] = it.value()->text().toLongLong();
    for (const QString& spec : m_inputKinds->text().split(';', Qt::SkipEmptyParts))
        if (!spec.trimmed().isEmpty())
            r.inputKinds.push_back(spec.trimmed().toStdString());
    return r;
}

bool SimulateDialog::ask(QWidget* parent, const storage::SimulatableSource& source, const QString& dbPath,
    storage::SimulateSourceRequest& out)
{
    SimulateDialog dialog(source, dbPath, parent);
    if (dialog.exec() != QDialog::Accepted || !dialog.ready())
        return false;
    out = dialog.request();
    return true;
}

SimulateJob::SimulateJob(QObject* parent)
    : QObject(parent)
    , m_poll(new QTimer(this))
{
    m_poll->setInterval(100);
    connect(m_poll, &QTimer::timeout, this, &SimulateJob::report);
}

SimulateJob::~SimulateJob()
{
    if (m_watcher) {
        m_state->cancel = true;
        m_watcher->waitForFinished();
    }
}

bool SimulateJob::start(storage::SimulateSourceRequest request)
{
    if (m_watcher)
        return false;
    auto state = std::make_shared<State>();
    m_state = state;
    m_lastDone = -1;
    request.progress = [state](int done, int total) {
        state->done = done;
        state->total = total;
        return state->cancel.load();
    };
    m_watcher = new QFutureWatcher<Outcome>(this);
    connect(m_watcher, &QFutureWatcher<Outcome>::finished, this, [this] {
        const Outcome o = m_watcher->result();
        m_watcher->deleteLater();
        m_watcher = nullptr;
        m_poll->stop();
        report();
        emit finished(o.runId, o.diagnostics, o.error);
    });
    m_watcher->setFuture(QtConcurrent::run([request] {
        Outcome o;
        auto r = storage::simulateSource(request);
        if (!r) {
            o.error = r.error().code == engine::ErrorCode::Cancelled ? QStringLiteral("cancelled")
                                                                     : QString::fromStdString(r.error().toString());
            return o;
        }
        o.runId = r->runId;
        for (const std::string& d : r->diagnostics)
            o.diagnostics << QString::fromStdString(d);
        return o;
    }));
    m_poll->start();
    return true;
}

void SimulateJob::cancel()
{
    if (m_state)
        m_state->cancel = true;
}

void SimulateJob::report()
{
    if (!m_state)
        return;
    const int done = m_state->done;
    if (done == m_lastDone)
        return;
    m_lastDone = done;
    emit progress(done, m_state->total);
}

} // namespace gui
