#include "coordinator/top/screen.h"

#include <curses.h>
#include <unistd.h>

#include <cstdlib>

namespace iashim::top {
namespace {

enum ColorPair : short { kBarPair = 1, kColumnsPair, kGpuPair, kAlertPair };

constexpr int kEsc = 27;
constexpr int kCtrlL = 12;
// ncurses waits this long after Esc for the rest of an escape sequence (an
// arrow key); its default of 1 s makes Esc feel broken as a quit key. 50 ms
// still holds together the sequences of a terminal across ssh.
constexpr int kEscDelayMs = 50;

// Attributes for a style; monochrome terminals fall back to reverse and bold.
attr_t Attributes(LineStyle style, bool colors) {
  switch (style) {
    case LineStyle::kTitle:
    case LineStyle::kFooter:
      return colors ? COLOR_PAIR(kBarPair) : A_REVERSE;
    case LineStyle::kColumns:
      return colors ? COLOR_PAIR(kColumnsPair) | A_BOLD : A_REVERSE | A_BOLD;
    case LineStyle::kGpu:
      return colors ? COLOR_PAIR(kGpuPair) | A_BOLD : A_BOLD;
    case LineStyle::kJobOverTarget:
      return colors ? COLOR_PAIR(kAlertPair) | A_BOLD : A_BOLD;
    case LineStyle::kJobDisconnected:
      return A_DIM;
    case LineStyle::kJob:
    case LineStyle::kNote:
      return A_NORMAL;
  }
  return A_NORMAL;
}

// Bars span the whole row, so their background reads as a bar.
bool FillsRow(LineStyle style) {
  return style == LineStyle::kTitle || style == LineStyle::kColumns || style == LineStyle::kFooter;
}

}  // namespace

std::unique_ptr<Screen> Screen::Open(std::string* error) {
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
    *error = "stdin and stdout must be a terminal";
    return nullptr;
  }
  // newterm, unlike initscr, reports a terminal it cannot drive instead of
  // exiting the process.
  struct ::screen* term = newterm(nullptr, stdout, stdin);
  if (term == nullptr) {
    const char* name = getenv("TERM");
    *error = std::string("cannot drive terminal type '") + (name ? name : "") + "'";
    return nullptr;
  }
  std::unique_ptr<Screen> s(new Screen(term));
  set_escdelay(kEscDelayMs);
  cbreak();  // keys at once, but Ctrl-C still interrupts
  noecho();
  nonl();
  keypad(stdscr, TRUE);
  nodelay(stdscr, TRUE);
  curs_set(0);  // may fail on some terminals; the picture is the same
  if (has_colors() && start_color() == OK) {
    s->colors_ = true;
    // The terminal's own background where there is no bar: what its user chose.
    const short background = use_default_colors() == OK ? -1 : COLOR_BLACK;
    init_pair(kBarPair, COLOR_BLACK, COLOR_CYAN);
    init_pair(kColumnsPair, COLOR_BLACK, COLOR_GREEN);
    init_pair(kGpuPair, COLOR_CYAN, background);
    init_pair(kAlertPair, COLOR_RED, background);
  }
  return s;
}

Screen::~Screen() {
  endwin();
  delscreen(term_);
}

int Screen::width() const { return getmaxx(stdscr); }

int Screen::height() const { return getmaxy(stdscr); }

void Screen::Draw(const std::vector<Line>& lines) {
  const int w = width();
  const int h = height();
  erase();
  for (int row = 0; row < h && row < static_cast<int>(lines.size()); ++row) {
    const Line& line = lines[static_cast<size_t>(row)];
    std::string text = line.text.substr(0, static_cast<size_t>(w));
    if (FillsRow(line.style)) text.resize(static_cast<size_t>(w), ' ');
    attrset(Attributes(line.style, colors_));
    // Writing the bottom-right cell returns ERR (the cursor cannot move on
    // without scrolling) but the character is drawn: nothing to handle.
    mvaddnstr(row, 0, text.c_str(), w);
  }
  attrset(A_NORMAL);
  refresh();
}

std::vector<Command> Screen::ReadCommands() {
  std::vector<Command> commands;
  for (int key = getch(); key != ERR; key = getch()) {
    switch (key) {
      case 'q':
      case 'Q':
      case kEsc:
        commands.push_back(Command::kQuit);
        break;
      case 's':
      case 'S':
        commands.push_back(Command::kNextSort);
        break;
      case 'r':
      case 'R':
        commands.push_back(Command::kReverse);
        break;
      case '?':
      case 'h':
      case 'H':
        commands.push_back(Command::kToggleLegend);
        break;
      case 'p':
      case 'P':
      case ' ':
        commands.push_back(Command::kTogglePause);
        break;
      case KEY_UP:
      case 'k':
        commands.push_back(Command::kScrollUp);
        break;
      case KEY_DOWN:
      case 'j':
        commands.push_back(Command::kScrollDown);
        break;
      case KEY_PPAGE:
        commands.push_back(Command::kPageUp);
        break;
      case KEY_NPAGE:
        commands.push_back(Command::kPageDown);
        break;
      case KEY_HOME:
      case 'g':
        commands.push_back(Command::kHome);
        break;
      case KEY_END:
      case 'G':
        commands.push_back(Command::kEnd);
        break;
      case kCtrlL:
        clearok(curscr, TRUE);  // repaint everything: the terminal was disturbed
        commands.push_back(Command::kRedraw);
        break;
      case KEY_RESIZE:
        commands.push_back(Command::kRedraw);
        break;
      default:
        break;  // unbound keys do nothing
    }
  }
  return commands;
}

}  // namespace iashim::top
