# datetime, calendar and time arithmetic (fixed offsets only: no tz database).
# Each `# %% name` cell is one independent program with its own asserts.

# %% days between dates
from datetime import date

def days_between(a: str, b: str) -> int:
    return abs((date.fromisoformat(b) - date.fromisoformat(a)).days)

assert days_between("2024-01-01", "2024-12-31") == 365
assert days_between("2023-01-01", "2023-12-31") == 364
assert days_between("2024-03-01", "2024-02-28") == 2
print(days_between("2000-01-01", "2024-06-15"))

# %% add business days
from datetime import date, timedelta

def add_business_days(start: date, days: int, holidays=frozenset()) -> date:
    current = start
    while days > 0:
        current += timedelta(days=1)
        if current.weekday() < 5 and current not in holidays:
            days -= 1
    return current

friday = date(2024, 5, 10)
assert add_business_days(friday, 1) == date(2024, 5, 13)
assert add_business_days(friday, 5) == date(2024, 5, 17)
assert add_business_days(friday, 1, {date(2024, 5, 13)}) == date(2024, 5, 14)
add_business_days(date(2024, 12, 20), 10, {date(2024, 12, 25), date(2024, 12, 26), date(2025, 1, 1)})

# %% weekday names
from datetime import date
import calendar

d = date(1969, 7, 20)
assert d.strftime("%A") == "Sunday"
assert calendar.day_name[d.weekday()] == "Sunday"
assert d.isoweekday() == 7
fridays_13 = [date(2024, m, 13) for m in range(1, 13) if date(2024, m, 13).weekday() == 4]
assert fridays_13 == [date(2024, 9, 13), date(2024, 12, 13)]
[f.strftime("%b") for f in fridays_13]

# %% parse and format
from datetime import datetime

stamp = datetime.strptime("2024-02-29 13:45:07", "%Y-%m-%d %H:%M:%S")
assert stamp.strftime("%d/%m/%y %I:%M %p") == "29/02/24 01:45 PM"
assert stamp.isoformat() == "2024-02-29T13:45:07"
assert datetime.fromisoformat("2024-02-29T13:45:07") == stamp
try:
    datetime.strptime("2023-02-29", "%Y-%m-%d")
except ValueError:
    invalid = True
assert invalid
stamp.strftime("%B %d, %Y")

# %% leap years
import calendar

def is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)

assert all(is_leap(y) == calendar.isleap(y) for y in range(1800, 2401))
assert [y for y in (1900, 2000, 2023, 2024) if is_leap(y)] == [2000, 2024]
assert calendar.leapdays(2000, 2100) == 25
print(sum(is_leap(y) for y in range(2000, 2101)))

# %% age calculation
from datetime import date

def age(born: date, today: date) -> int:
    return today.year - born.year - ((today.month, today.day) < (born.month, born.day))

assert age(date(1990, 6, 15), date(2024, 6, 14)) == 33
assert age(date(1990, 6, 15), date(2024, 6, 15)) == 34
assert age(date(2000, 2, 29), date(2023, 2, 28)) == 22
assert age(date(2000, 2, 29), date(2023, 3, 1)) == 23
age(date(1815, 12, 10), date(1852, 11, 27))

# %% timedelta totals
from datetime import timedelta

shifts = ["8:30", "7:45", "9:15", "6:50", "8:00"]
def parse(hm):
    h, m = map(int, hm.split(":"))
    return timedelta(hours=h, minutes=m)

total = sum(map(parse, shifts), timedelta())
assert total == timedelta(hours=40, minutes=20)
assert total.total_seconds() / 3600 == 40 + 1 / 3
overtime = max(timedelta(), total - timedelta(hours=40))
assert str(overtime) == "0:20:00"
average = total / len(shifts)
assert average == timedelta(hours=8, minutes=4)
str(total)

# %% fixed offset time zones
from datetime import datetime, timedelta, timezone

utc = timezone.utc
cet = timezone(timedelta(hours=1), "CET")
ist = timezone(timedelta(hours=5, minutes=30), "IST")
meeting = datetime(2024, 1, 15, 9, 0, tzinfo=cet)
assert meeting.astimezone(utc).hour == 8
in_india = meeting.astimezone(ist)
assert (in_india.hour, in_india.minute) == (13, 30)
assert meeting == in_india
assert in_india.isoformat() == "2024-01-15T13:30:00+05:30"
in_india.tzname()

# %% month end dates
from datetime import date, timedelta
import calendar

def month_end(year, month):
    return date(year, month, calendar.monthrange(year, month)[1])

ends = [month_end(2024, m).day for m in range(1, 13)]
assert ends == [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
def add_months(d, n):
    y, m = divmod(d.month - 1 + n, 12)
    year, month = d.year + y, m + 1
    return date(year, month, min(d.day, calendar.monthrange(year, month)[1]))
assert add_months(date(2024, 1, 31), 1) == date(2024, 2, 29)
assert add_months(date(2024, 11, 30), 3) == date(2025, 2, 28)
assert add_months(date(2024, 5, 15), -6) == date(2023, 11, 15)
ends

# %% calendar text
import calendar

cal = calendar.TextCalendar(calendar.MONDAY)
text = cal.formatmonth(2024, 2)
lines = text.splitlines()
assert lines[0].strip() == "February 2024"
assert lines[1] == "Mo Tu We Th Fr Sa Su"
assert lines[-1].split()[-1] == "29"
weeks = calendar.monthcalendar(2024, 2)
assert weeks[0][:3] == [0, 0, 0] and weeks[0][3] == 1
print(text)

# %% iso weeks
from datetime import date, timedelta

assert date(2024, 12, 30).isocalendar()[:2] == (2025, 1)
assert date(2021, 1, 3).isocalendar()[:2] == (2020, 53)
monday = date.fromisocalendar(2024, 10, 1)
assert monday == date(2024, 3, 4)
week = [monday + timedelta(days=i) for i in range(7)]
assert all(d.isocalendar()[1] == 10 for d in week)
[d.strftime("%a %d") for d in week]

# %% unix timestamps
from datetime import datetime, timezone

epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
moment = datetime(2024, 1, 1, tzinfo=timezone.utc)
assert moment.timestamp() == 1704067200
assert datetime.fromtimestamp(1704067200, timezone.utc) == moment
assert (moment - epoch).days == 19723
billion = datetime.fromtimestamp(1_000_000_000, timezone.utc)
assert billion.isoformat() == "2001-09-09T01:46:40+00:00"
billion.year

# %% countdown formatting
from datetime import datetime, timedelta

def humanize(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    parts = []
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        n, seconds = divmod(seconds, size)
        if n:
            parts.append(f"{n} {unit}{'s' if n != 1 else ''}")
    return ", ".join(parts) or "now"

now = datetime(2024, 12, 24, 18, 30, 15)
christmas = datetime(2024, 12, 25)
assert humanize(christmas - now) == "5 hours, 29 minutes, 45 seconds"
assert humanize(timedelta(days=1, seconds=1)) == "1 day, 1 second"
assert humanize(timedelta()) == "now"
humanize(datetime(2025, 1, 1) - now)

# %% overlapping bookings
from datetime import datetime

bookings = [
    ("ana", datetime(2024, 5, 1, 9), datetime(2024, 5, 1, 10)),
    ("ben", datetime(2024, 5, 1, 9, 30), datetime(2024, 5, 1, 11)),
    ("cho", datetime(2024, 5, 1, 11), datetime(2024, 5, 1, 12)),
    ("dev", datetime(2024, 5, 1, 11, 45), datetime(2024, 5, 1, 13)),
]
def overlaps(a, b):
    return a[1] < b[2] and b[1] < a[2]
clashes = [(a[0], b[0]) for i, a in enumerate(bookings) for b in bookings[i + 1:] if overlaps(a, b)]
assert clashes == [("ana", "ben"), ("cho", "dev")]
busy = sum(((end - start).total_seconds() for _, start, end in bookings)) / 3600
assert busy == 4.75
clashes

# %% recurring events
from datetime import date, timedelta

def every_other_tuesday(start: date, until: date):
    current = start + timedelta(days=(1 - start.weekday()) % 7)
    while current <= until:
        yield current
        current += timedelta(weeks=2)

dates = list(every_other_tuesday(date(2024, 1, 1), date(2024, 3, 31)))
assert dates[0] == date(2024, 1, 2)
assert all(d.weekday() == 1 for d in dates)
assert len(dates) == 7
[d.isoformat() for d in dates]

# %% quarter reporting
from datetime import date
from collections import defaultdict

sales = [(date(2024, 1, 15), 120), (date(2024, 2, 3), 80), (date(2024, 4, 30), 200),
         (date(2024, 7, 1), 50), (date(2024, 9, 30), 75), (date(2024, 12, 31), 300)]
quarters = defaultdict(int)
for day, amount in sales:
    quarters[f"Q{(day.month - 1) // 3 + 1}"] += amount
assert dict(quarters) == {"Q1": 200, "Q2": 200, "Q3": 125, "Q4": 300}
best = max(quarters, key=quarters.get)
assert best == "Q4"
dict(quarters)

# %% time of day buckets
from datetime import time

def bucket(t: time) -> str:
    if time(5) <= t < time(12):
        return "morning"
    if time(12) <= t < time(17):
        return "afternoon"
    if time(17) <= t < time(22):
        return "evening"
    return "night"

times = [time(6, 30), time(12), time(16, 59), time(21, 59, 59), time(23, 15), time(0, 5)]
assert [bucket(t) for t in times] == ["morning", "afternoon", "afternoon", "evening", "night", "night"]
assert time(9, 5).strftime("%H:%M") == "09:05"
assert time.fromisoformat("07:45:30").second == 30
[bucket(t) for t in times]

# %% date ranges and gaps
from datetime import date, timedelta

logged = {date(2024, 3, d) for d in [1, 2, 3, 5, 6, 9, 10, 11, 12]}
start, end = min(logged), max(logged)
every_day = {start + timedelta(days=i) for i in range((end - start).days + 1)}
missing = sorted(every_day - logged)
assert missing == [date(2024, 3, 4), date(2024, 3, 7), date(2024, 3, 8)]
streak = best = 0
for i in range((end - start).days + 1):
    streak = streak + 1 if start + timedelta(days=i) in logged else 0
    best = max(best, streak)
assert best == 4
print(missing, best)

# %% sorting timestamps
from datetime import datetime

events = ["2024-03-10T08:00:00", "2023-12-31T23:59:59", "2024-03-10T07:59:59", "2024-01-01T00:00:00"]
ordered = sorted(events, key=datetime.fromisoformat)
assert ordered[0] == "2023-12-31T23:59:59"
assert ordered[-1] == "2024-03-10T08:00:00"
gaps = [(datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds() for a, b in zip(ordered, ordered[1:])]
assert gaps[0] == 1.0
assert gaps[-1] == 1.0
ordered
