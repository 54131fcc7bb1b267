"""Sample datasheets: eight electronic components, each with a `properties` row and one `parameter` row per
electrical characteristic (value, unit, min and max), so that questions like "resistors of at least 10 kOhm"
or "regulators with a dropout below 300 mV" have exact answers.

sample-datasheet-002 is the 4.7 kOhm variant of sample-datasheet-001, identical apart from that value:
a near-duplicate.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date

from core.models import AnnotationRow, Document, FieldSpec, SourceDocument
from retrievers.loaders.common import RowBuilder, source_document
from retrievers.loaders.sample.companies import COMPANIES

BUCKET = "datasheets"
FIELDS = [
    FieldSpec(
        name="manufacturer",
        type="string",
        description="Company that makes the component",
        aliases=["manufacturer", "makes", "made by", "maker", "brand"],
        role="name",
    ),
    FieldSpec(
        name="part_number",
        type="string",
        description="Manufacturer's part number, exactly as printed",
        aliases=["part", "part number", "part no", "mpn"],
        role="identifier",
    ),
    FieldSpec(
        name="category",
        type="string",
        description="Kind of component, e.g. 'resistor', 'voltage regulator'",
        aliases=["category", "kind", "type", "kind of component"],
    ),
    FieldSpec(
        name="package",
        type="string",
        description="Physical package, e.g. '0603', 'SOT-223'",
        aliases=["package", "footprint", "case"],
    ),
    FieldSpec(
        name="rohs_compliant",
        type="boolean",
        description="True when the part meets the EU RoHS directive",
        aliases=["rohs", "rohs compliant", "lead-free", "lead free"],
    ),
    FieldSpec(
        name="datasheet_revision",
        type="string",
        description="Revision of the datasheet, e.g. 'C'",
        aliases=["revision", "rev", "datasheet revision"],
    ),
    FieldSpec(
        name="parameter",
        type="string",
        description="Parameter rows: name of the characteristic, e.g. 'resistance'",
        aliases=["parameter", "characteristic", "spec", "specification"],
    ),
    FieldSpec(
        name="symbol",
        type="string",
        description="Parameter rows: symbol of the characteristic, e.g. 'R', 'V_DO'",
        aliases=["symbol"],
    ),
    FieldSpec(
        name="value",
        type="number",
        description="Parameter rows: typical or nominal value, in `unit`",
        aliases=["value", "typical", "nominal", "rated"],
        unit_field="unit",
    ),
    FieldSpec(
        name="min",
        type="number",
        description="Parameter rows: minimum value, in `unit`",
        aliases=["min", "minimum"],
        unit_field="unit",
    ),
    FieldSpec(
        name="max",
        type="number",
        description="Parameter rows: maximum value, in `unit`",
        aliases=["max", "maximum"],
        unit_field="unit",
    ),
    FieldSpec(
        name="unit",
        type="string",
        description="Parameter rows: unit of value, min and max, e.g. 'ohm', 'mV', 'degC'",
        aliases=["unit", "units"],
    ),
    FieldSpec(
        name="condition",
        type="string",
        description="Parameter rows: test condition, e.g. 'I_OUT = 500 mA'",
        aliases=["condition", "test condition", "measured at"],
    ),
]

# (parameter, symbol, min, typical, max, unit, condition)
_Parameter = tuple[str, str, float | None, float | None, float | None, str, str]


@dataclass(frozen=True)
class _Datasheet:
    number: int
    part_number: str
    manufacturer: str  # key into COMPANIES
    category: str
    headline: str
    package: str
    description: str
    features: tuple[str, ...]
    parameters: tuple[_Parameter, ...]
    applications: str
    revision: str
    revised: date
    author: str


def _resistor(number: int, part_number: str, ohms: float, label: str) -> _Datasheet:
    """The two thick film resistors differ only in value, as a manufacturer's series datasheets do."""
    return _Datasheet(
        number,
        part_number,
        "northwind",
        "resistor",
        f"Thick film chip resistor, {label}, 1%, 0603",
        "0603",
        f"The {part_number} is a {label} thick film chip resistor in the 0603 (1608 metric) size for general purpose "
        "circuits. A ruthenium oxide film on a high-purity alumina substrate, laser trimmed to value, gives a tight "
        "1% tolerance and stable performance across temperature. Nickel barrier terminations with matte tin plating "
        "make it suitable for reflow and wave soldering.",
        (
            "Resistance " + label + " with 1% tolerance",
            "Rated power 0.1 W at 70 degC",
            "TCR within +/-100 ppm/K",
            "AEC-Q200 qualified",
            "Lead-free and RoHS compliant; halogen free",
        ),
        (
            ("resistance", "R", None, ohms, None, "ohm", "T_A = 25 degC"),
            ("tolerance", "tol", -1.0, None, 1.0, "%", ""),
            ("rated power", "P_70", None, 0.1, None, "W", "T_A = 70 degC"),
            ("temperature coefficient", "TCR", -100.0, None, 100.0, "ppm/K", "-55 degC to 155 degC"),
            ("maximum working voltage", "V_max", None, None, 75.0, "V", ""),
            ("operating temperature", "T_op", -55.0, None, 155.0, "degC", ""),
        ),
        "Pull-up and pull-down networks, voltage dividers, current limiting for indicator LEDs and general signal "
        "conditioning in consumer, industrial and automotive electronics. Above 70 degC ambient, derate the power "
        "linearly to zero at 155 degC.",
        "C",
        date(2022, 8, 15),
        "Priya Natarajan",
    )


_DATASHEETS = [
    _resistor(1, "NWC-RES-10K-0603", 10000.0, "10 kOhm"),
    _resistor(2, "NWC-RES-4K7-0603", 4700.0, "4.7 kOhm"),
    _Datasheet(
        3,
        "NWC-CAP-100N-0402",
        "northwind",
        "capacitor",
        "Multilayer ceramic capacitor, 100 nF, 16 V, X7R, 0402",
        "0402",
        "The NWC-CAP-100N-0402 is a 100 nF multilayer ceramic chip capacitor with X7R dielectric, rated at 16 V, in "
        "the 0402 (1005 metric) size. Its low equivalent series resistance and inductance make it the standard "
        "choice for decoupling the supply pins of digital integrated circuits.",
        (
            "100 nF +/-10%, X7R dielectric",
            "Rated voltage 16 V DC",
            "Capacitance change within +/-15% from -55 degC to 125 degC",
            "Nickel barrier terminations",
            "RoHS compliant",
        ),
        (
            ("capacitance", "C", 90.0, 100.0, 110.0, "nF", "1 kHz, 1 V_rms"),
            ("rated voltage", "V_R", None, 16.0, None, "V", "DC"),
            ("dissipation factor", "tan_d", None, None, 5.0, "%", "1 kHz, 1 V_rms"),
            ("insulation resistance", "R_ins", 10000.0, None, None, "Mohm", "rated voltage, 60 s"),
            ("operating temperature", "T_op", -55.0, None, 125.0, "degC", ""),
        ),
        "Decoupling and bypass of logic and microcontroller supplies, filtering in DC/DC converters, and coupling of "
        "low-frequency signals. Place the capacitor as close as possible to the supply pin it decouples.",
        "B",
        date(2021, 11, 2),
        "Priya Natarajan",
    ),
    _Datasheet(
        4,
        "KST-LDO-3V3",
        "kestrel_semi",
        "voltage regulator",
        "Low-dropout linear regulator, 3.3 V, 500 mA",
        "SOT-223",
        "The KST-LDO-3V3 is a fixed 3.3 V low-dropout linear regulator that delivers up to 500 mA with a typical "
        "dropout of 250 mV at full load. A quiescent current of 55 uA keeps standby losses low in battery powered "
        "designs. Foldback current limiting and thermal shutdown protect the device and its load from faults.",
        (
            "Output voltage 3.3 V, +/-2% over line, load and temperature",
            "Dropout 250 mV typical at 500 mA",
            "Quiescent current 55 uA",
            "Stable with 1 uF ceramic output capacitors",
            "Thermal shutdown and current limit",
        ),
        (
            ("output voltage", "V_OUT", 3.234, 3.3, 3.366, "V", "I_OUT = 1 mA to 500 mA"),
            ("output current", "I_OUT", None, None, 500.0, "mA", ""),
            ("dropout voltage", "V_DO", None, 250.0, 400.0, "mV", "I_OUT = 500 mA"),
            ("input voltage", "V_IN", 3.6, None, 16.0, "V", ""),
            ("quiescent current", "I_Q", None, 55.0, 90.0, "uA", "I_OUT = 0 mA"),
            ("junction temperature", "T_J", -40.0, None, 125.0, "degC", ""),
        ),
        "Point-of-load supplies for microcontrollers, sensors and radios from a 5 V rail or a two-cell battery. "
        "Use at least 1 uF on the input and output; the thermal pad must be soldered to a copper area of at least "
        "2 cm2 to dissipate 1 W.",
        "D",
        date(2023, 3, 9),
        "Priya Natarajan",
    ),
    _Datasheet(
        5,
        "KST-MOS-N30",
        "kestrel_semi",
        "MOSFET",
        "N-channel enhancement mode MOSFET, 30 V, 5.8 A",
        "SOT-23",
        "The KST-MOS-N30 is an N-channel enhancement mode power MOSFET in a SOT-23 package. A trench process gives an "
        "on-resistance of 28 mOhm at 10 V gate drive and low gate charge, so it switches efficiently in load switches "
        "and low-voltage DC/DC converters.",
        (
            "V_DS 30 V, I_D 5.8 A",
            "R_DS(on) 28 mOhm typical at V_GS = 10 V",
            "Logic-level gate threshold",
            "100% avalanche tested",
            "Halogen free, RoHS compliant",
        ),
        (
            ("drain-source voltage", "V_DS", None, None, 30.0, "V", ""),
            ("continuous drain current", "I_D", None, None, 5.8, "A", "T_A = 25 degC"),
            ("on-resistance", "R_DS(on)", None, 28.0, 35.0, "mohm", "V_GS = 10 V, I_D = 5 A"),
            ("gate threshold voltage", "V_GS(th)", 1.0, None, 2.5, "V", "I_D = 250 uA"),
            ("total gate charge", "Q_g", None, 9.2, None, "nC", "V_GS = 10 V"),
        ),
        "Load switching, battery protection, motor drive for small fans and the low side of synchronous buck "
        "converters up to 24 V input.",
        "A",
        date(2022, 5, 30),
        "Priya Natarajan",
    ),
    _Datasheet(
        6,
        "KST-OPA-2210",
        "kestrel_semi",
        "operational amplifier",
        "Dual rail-to-rail operational amplifier, 10 MHz",
        "SOIC-8",
        "The KST-OPA-2210 is a dual CMOS operational amplifier with rail-to-rail inputs and outputs, a gain bandwidth "
        "product of 10 MHz and a slew rate of 6 V/us, running from a single 2.7 V to 5.5 V supply. Low offset and "
        "low noise suit it to sensor front ends and active filters.",
        (
            "Gain bandwidth 10 MHz",
            "Slew rate 6 V/us",
            "Offset voltage 0.5 mV typical",
            "Rail-to-rail input and output",
            "Supply 2.7 V to 5.5 V",
        ),
        (
            ("gain bandwidth product", "GBW", None, 10.0, None, "MHz", "V_S = 5 V"),
            ("supply voltage", "V_S", 2.7, None, 5.5, "V", ""),
            ("input offset voltage", "V_OS", None, 0.5, 2.0, "mV", "V_S = 5 V"),
            ("slew rate", "SR", None, 6.0, None, "V/us", "G = +1"),
            ("quiescent current per amplifier", "I_Q", None, 0.9, 1.2, "mA", ""),
        ),
        "Sensor signal conditioning, active filters, photodiode transimpedance amplifiers and ADC drivers in "
        "portable instruments.",
        "B",
        date(2020, 12, 1),
        "Priya Natarajan",
    ),
    _Datasheet(
        7,
        "KST-TMP-117A",
        "kestrel_semi",
        "temperature sensor",
        "Digital temperature sensor, +/-0.1 degC, I2C",
        "WSON-6",
        "The KST-TMP-117A is a digital temperature sensor with an I2C interface and an accuracy of +/-0.1 degC from "
        "-20 degC to 50 degC, without calibration. A 16-bit result with 0.0078 degC resolution, alert pins and "
        "programmable averaging make it a drop-in replacement for platinum RTDs in many designs.",
        (
            "Accuracy +/-0.1 degC from -20 degC to 50 degC",
            "Range -55 degC to 150 degC",
            "Resolution 0.0078 degC",
            "I2C and SMBus compatible",
            "Supply 1.7 V to 5.5 V",
        ),
        (
            ("accuracy", "dT", -0.1, None, 0.1, "degC", "-20 degC to 50 degC"),
            ("measurement range", "T_range", -55.0, None, 150.0, "degC", ""),
            ("resolution", "LSB", None, 0.0078, None, "degC", ""),
            ("supply voltage", "V_DD", 1.7, None, 5.5, "V", ""),
        ),
        "Cold-chain and food storage monitoring, medical thermometers, environmental data loggers and thermal "
        "protection of batteries.",
        "A",
        date(2023, 9, 18),
        "Priya Natarajan",
    ),
    _Datasheet(
        8,
        "NWC-LED-W5050",
        "northwind",
        "LED",
        "White power LED, 6500 K, 120 lm, 5050",
        "5050",
        "The NWC-LED-W5050 is a cool white 0.5 W LED in a 5.0 mm x 5.0 mm package, giving 120 lm at 150 mA with a "
        "colour rendering index of at least 80 and a 120 degree viewing angle. It is binned for colour temperature "
        "and forward voltage.",
        (
            "Luminous flux 120 lm at 150 mA",
            "Correlated colour temperature 6500 K",
            "CRI 80 minimum",
            "Viewing angle 120 degrees",
            "RoHS compliant",
        ),
        (
            ("luminous flux", "Phi_v", 110.0, 120.0, None, "lm", "I_F = 150 mA"),
            ("colour temperature", "CCT", 6000.0, 6500.0, 7000.0, "K", "I_F = 150 mA"),
            ("forward voltage", "V_F", 2.9, 3.1, 3.3, "V", "I_F = 150 mA"),
            ("colour rendering index", "CRI", 80.0, None, None, "", "I_F = 150 mA"),
            ("viewing angle", "2theta", None, 120.0, None, "deg", ""),
        ),
        "Panel and troffer luminaires, warehouse lighting, signage backlights and task lamps.",
        "A",
        date(2024, 1, 22),
        "Priya Natarajan",
    ),
]


def documents() -> Iterator[SourceDocument]:
    for sheet in _DATASHEETS:
        manufacturer = COMPANIES[sheet.manufacturer].name
        document = Document(
            doc_id=f"sample-datasheet-{sheet.number:03d}",
            bucket=BUCKET,
            title=f"{sheet.part_number} - {sheet.headline}",
            author=sheet.author,
            tags=["sample", sheet.category],
            created_at=sheet.revised,
            source="sample://datasheets",
            body=_body(sheet, manufacturer),
        )
        yield source_document(document, [_properties(sheet, manufacturer), *map(_parameter_row, sheet.parameters)])


def _properties(sheet: _Datasheet, manufacturer: str) -> AnnotationRow | None:
    row = RowBuilder()
    for name, value in (
        ("manufacturer", manufacturer),
        ("part_number", sheet.part_number),
        ("category", sheet.category),
        ("package", sheet.package),
        ("rohs_compliant", True),
        ("datasheet_revision", sheet.revision),
    ):
        row.add(name, value)
    return row.build()


def _parameter_row(parameter: _Parameter) -> AnnotationRow | None:
    row = RowBuilder(kind="parameter")
    for name, value in zip(("parameter", "symbol", "min", "value", "max", "unit", "condition"), parameter, strict=True):
        row.add(name, value)
    return row.build()


def _body(sheet: _Datasheet, manufacturer: str) -> str:
    def cell(value: float | None) -> str:
        return "-" if value is None else f"{value:g}"

    table = ["Parameter | Symbol | Min | Typ | Max | Unit | Conditions"] + [
        f"{name} | {symbol} | {cell(low)} | {cell(typical)} | {cell(high)} | {unit} | {condition or '-'}"
        for name, symbol, low, typical, high, unit, condition in sheet.parameters
    ]
    return "\n\n".join(
        [
            f"{sheet.part_number}\n{sheet.headline}\n"
            f"{manufacturer} - Datasheet revision {sheet.revision}, {sheet.revised:%B %Y}",
            f"General description\n{sheet.description}",
            "Features\n" + "\n".join(f"- {feature}" for feature in sheet.features),
            "Electrical characteristics (T_A = 25 degC unless otherwise noted)\n" + "\n".join(table),
            f"Applications\n{sheet.applications}",
            f"Ordering information\n{sheet.part_number}: {sheet.package} package, tape and reel. "
            "The part is lead-free and complies with the EU RoHS directive 2011/65/EU as amended by (EU) 2015/863. "
            f"Contact {manufacturer} for samples, reliability reports and PCN notifications.",
        ]
    )
