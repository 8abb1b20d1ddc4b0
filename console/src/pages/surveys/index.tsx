/** Surveys: /surveys (the list) and /surveys/:id (the editor: sections as nodes, branches as edges). */
import { Route, Routes } from 'react-router';
import { SurveyEditor } from './editor.tsx';
import { SurveyList } from './list.tsx';
import './surveys.css';

export default function Surveys() {
  return (
    <Routes>
      <Route index element={<SurveyList />} />
      <Route path=":id" element={<SurveyEditor />} />
    </Routes>
  );
}
